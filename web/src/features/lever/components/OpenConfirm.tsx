/**
 * The confirmation of an open (issue #16 §3): a table of everything the open charges and risks,
 * with units — pair, direction, lots and leverage, the price it is priced at, value, margin, open
 * fee, the total taken now, the overnight fee per day, the maintenance rate and the liquidation
 * price, TP/SL and the gain cap — computed (math.ts openTerms, as the server computes them) from
 * the index the screen has now, refreshed while the dialog is open. The open sends that index;
 * the server refuses it with price_moved when its own index is further away than the stated
 * tolerance, and the dialog then stays open with the server's message on top and the new figures.
 */
import { m } from "../../../i18n/index.ts";
import { formatPrice, formatMoneyMoved } from "../../../lib/format.ts";
import { Modal } from "../../../components/Modal.tsx";
import { Spinner } from "../../../components/States.tsx";
import type { OpenTerms } from "../math.ts";
import s from "./lever.module.css";

export interface OpenSummary {
  coinName: string;
  type: 1 | 2;
  limit: boolean;
  /** the price the open is priced at: the live index (market) or the limit price */
  price: string;
  lots: string;
  lotSize: string;
  multiple: number;
  feePercent: string;
  overnightPercent: string;
  maintenancePercent: string;
  tolerancePercent: string;
  tp: string;
  sl: string;
  terms: OpenTerms;
  capText: string;
}

/** Amounts about to move, by the one amount rule (lib/format.ts formatMoneyMoved). */
const usdt = (v: string) => `${formatMoneyMoved(v, "USDT")} USDT`;

export function OpenConfirm({ o, busy, error, onCancel, onConfirm }: { o: OpenSummary; busy: boolean; error: string; onCancel: () => void; onConfirm: () => void }) {
  const t = o.terms;
  const long = o.type === 1;
  return (
    <Modal
      title={m.lever_confirm_title()}
      onClose={onCancel}
      busy={busy}
      testId="lever-confirm"
      dismiss={{ testId: "lever-confirm-cancel" }}
      actions={
        <button type="button" className={`btn ${long ? s.longBtn : s.shortBtn}`} onClick={onConfirm} disabled={busy} data-testid="lever-confirm-go">
          {busy && <Spinner size={16} />}
          {long ? m.lever_open_long() : m.lever_open_short()}
        </button>
      }
    >
      {error && (
        <p className={`field-error ${s.confirmError}`} role="alert" data-testid="lever-confirm-error">
          {error}
        </p>
      )}
      <dl className={s.terms} data-testid="lever-confirm-terms">
        <div>
          <dt>{m.lever_pair()}</dt>
          <dd>{o.coinName}/USDT</dd>
        </div>
        <div>
          <dt>{m.lever_direction()}</dt>
          <dd className={long ? s.up : s.down}>{long ? m.lever_long() : m.lever_short()} · {o.limit ? m.lever_limit() : m.lever_market()}</dd>
        </div>
        <div>
          <dt>{m.lever_lots()}</dt>
          <dd data-testid="lever-confirm-lots">{m.lever_lots_of({ lots: o.lots, size: o.lotSize, coin: o.coinName })}</dd>
        </div>
        <div>
          <dt>{m.lever_leverage()}</dt>
          <dd>{o.multiple}×</dd>
        </div>
        <div>
          <dt>{o.limit ? m.lever_target() : m.lever_index_now()}</dt>
          <dd data-testid="lever-confirm-price">{formatPrice(o.price)} USDT</dd>
        </div>
        <div>
          <dt>{m.lever_value()}</dt>
          <dd>{usdt(t.value)}</dd>
        </div>
        <div>
          <dt>{m.lever_margin()}</dt>
          <dd data-testid="lever-confirm-margin">{usdt(t.margin)}</dd>
        </div>
        <div>
          <dt>{m.lever_fee_open({ percent: o.feePercent })}</dt>
          <dd data-testid="lever-confirm-fee">{usdt(t.fee)}</dd>
        </div>
        <div className={s.termsTotal}>
          <dt>{m.lever_cost()}</dt>
          <dd data-testid="lever-confirm-cost">{usdt(t.cost)}</dd>
        </div>
        <div>
          <dt>{m.lever_overnight_day({ percent: o.overnightPercent })}</dt>
          <dd data-testid="lever-confirm-overnight">{usdt(t.overnightPerDay)}</dd>
        </div>
        <div>
          <dt>{m.lever_maintenance()}</dt>
          <dd data-testid="lever-confirm-maintenance">{o.maintenancePercent}%</dd>
        </div>
        <div>
          <dt>{m.lever_force()}</dt>
          <dd data-testid="lever-confirm-liquidation">{t.liquidation === null ? m.lever_none() : `${formatPrice(t.liquidation)} USDT`}</dd>
        </div>
        <div>
          <dt>{m.lever_tp()}</dt>
          <dd data-testid="lever-confirm-tp">{o.tp ? `${formatPrice(o.tp)} USDT` : m.lever_not_set()}</dd>
        </div>
        <div>
          <dt>{m.lever_sl()}</dt>
          <dd data-testid="lever-confirm-sl">{o.sl ? `${formatPrice(o.sl)} USDT` : m.lever_not_set()}</dd>
        </div>
      </dl>
      <p className={s.note}>{m.lever_fee_close_note({ percent: o.feePercent })}</p>
      <p className={s.note}>{o.capText}</p>
      <p className={s.note} data-testid="lever-confirm-price-note">
        {o.limit ? m.lever_limit_note() : m.lever_tolerance_note({ tolerance: o.tolerancePercent })}
      </p>
    </Modal>
  );
}
