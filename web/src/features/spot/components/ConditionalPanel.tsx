/**
 * Conditional orders on the spot screen (issue #30): a form for a stop-limit, an OCO or a trailing
 * stop that says its rule in words before it is sent, the pair's open conditional orders with
 * cancel, and "cancel all" of the pair's orders behind a confirmation. Funds are held when placed,
 * like a limit order's; what fires becomes an ordinary order in the open orders above.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { formatMoney, formatPrice } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { EmptyState, Spinner } from "../../../components/States.tsx";
import { LEGAL_ID, type PairRow, type Side } from "../api.ts";
import { newClientOrderId } from "../display.ts";
import { useCancelAll, useCancelConditional, useOpenConditional, usePlaceConditional, type ConditionalOrderOut, type ConditionalType } from "../conditionalApi.ts";
import s from "./conditional.module.css";

const TYPES: ConditionalType[] = ["stop_limit", "oco", "trailing"];
const typeName = (t: ConditionalType) => (t === "stop_limit" ? m.cond_type_stop_limit() : t === "oco" ? m.cond_type_oco() : m.cond_type_trailing());
const positive = (v: string) => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0;

interface Fields {
  num: string;
  price: string;
  stop: string;
  limit: string;
  callback: string;
  activation: string;
}

/** The rule of an order in words, or null while a needed field is empty. */
export function ruleText(type: ConditionalType, side: Side, f: Fields, coin: string): string | null {
  const qty = f.num;
  if (!positive(qty) || !positive(f.price)) return null;
  const base = { qty, coin, price: f.price };
  if (type === "stop_limit") {
    if (!positive(f.stop)) return null;
    return side === "buy" ? m.cond_rule_stop_limit_buy({ ...base, stop: f.stop }) : m.cond_rule_stop_limit_sell({ ...base, stop: f.stop });
  }
  if (type === "oco") {
    if (!positive(f.stop) || !positive(f.limit)) return null;
    return side === "buy" ? m.cond_rule_oco_buy({ ...base, stop: f.stop, limit: f.limit }) : m.cond_rule_oco_sell({ ...base, stop: f.stop, limit: f.limit });
  }
  if (!positive(f.callback)) return null;
  const start = positive(f.activation) ? m.cond_start_at({ price: f.activation }) : m.cond_start_now();
  return side === "buy" ? m.cond_rule_trailing_buy({ ...base, start, percent: f.callback }) : m.cond_rule_trailing_sell({ ...base, start, percent: f.callback });
}

/** A callback given in percent (0.1–20, at most two decimals) as basis points, or null. */
const callbackBps = (percent: string) => (/^\d+(\.\d{1,2})?$/.test(percent) ? Math.round(Number(percent) * 100) : null);

export function ConditionalPanel({ pair }: { pair: PairRow }) {
  const coin = pair.currency_name;
  const quote = pair.legal_name || "USDT";
  const [type, setType] = useState<ConditionalType>("stop_limit");
  const [side, setSide] = useState<Side>("sell");
  const [f, setF] = useState<Fields>({ num: "", price: "", stop: "", limit: "", callback: "1", activation: "" });
  const [busy, setBusy] = useState(false);
  const place = usePlaceConditional();
  const open = useOpenConditional(pair.currency_id, true);
  const rule = ruleText(type, side, f, coin);
  const set = (k: keyof Fields) => (e: { target: { value: string } }) => setF((p) => ({ ...p, [k]: e.target.value.trim() }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!rule || busy) return;
    setBusy(true);
    try {
      await place({
        currency_id: pair.currency_id,
        legal_id: LEGAL_ID,
        side,
        type,
        num: f.num,
        price: f.price,
        ...(type !== "trailing" ? { stop_price: f.stop } : {}),
        ...(type === "oco" ? { limit_price: f.limit } : {}),
        ...(type === "trailing" ? { callback_bps: callbackBps(f.callback) ?? -1 } : {}),
        ...(type === "trailing" && f.activation ? { activation_price: f.activation } : {}),
        client_oid: newClientOrderId(),
      });
      toast.success(m.cond_placed());
      open.reload();
    } catch {
      // The API client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  const input = (k: keyof Fields, label: string, unit: string) => (
    <label className={s.field}>
      <span className="muted">{unit ? `${label} (${unit})` : label}</span>
      <input className="input num" inputMode="decimal" value={f[k]} onChange={set(k)} data-testid={`cond-${k}`} />
    </label>
  );

  return (
    <section className={s.panel} aria-label={m.cond_title()} data-testid="conditional-panel">
      <div className={s.head}>
        <h2 className={s.title}>{m.cond_title()}</h2>
        <CancelAll pair={pair} onDone={open.reload} />
      </div>
      <form onSubmit={submit} noValidate data-testid="cond-form">
        <div className={s.toggle} role="radiogroup" aria-label={m.spot_mode_label()}>
          {TYPES.map((t) => (
            <button key={t} type="button" role="radio" aria-checked={type === t} onClick={() => setType(t)} data-testid={`cond-type-${t}`}>
              {typeName(t)}
            </button>
          ))}
        </div>
        <div className={s.toggle} role="radiogroup" aria-label={m.spot_side_label()}>
          {(["buy", "sell"] as const).map((sd) => (
            <button key={sd} type="button" role="radio" aria-checked={side === sd} onClick={() => setSide(sd)} className={s[sd]} data-testid={`cond-side-${sd}`}>
              {sd === "buy" ? m.spot_buy() : m.spot_sell()}
            </button>
          ))}
        </div>
        <div className={s.fields}>
          {type !== "trailing" && input("stop", m.cond_stop_price(), quote)}
          {input("price", m.cond_limit_price(), quote)}
          {type === "oco" && input("limit", m.cond_stop_limit_price(), quote)}
          {type === "trailing" && input("callback", m.cond_callback(), "")}
          {type === "trailing" && input("activation", m.cond_activation(), quote)}
          {input("num", m.spot_quantity(), coin)}
        </div>
        <p className={s.rule} data-testid="cond-rule">
          {rule ?? m.cond_rule_incomplete()}
        </p>
        <button type="submit" className="btn btn-primary btn-block" disabled={!rule || busy} aria-busy={busy} data-testid="cond-submit">
          {busy ? <Spinner size={14} /> : side === "buy" ? m.cond_place_buy() : m.cond_place_sell()}
        </button>
      </form>
      <h3 className={`${s.title} ${s.listTitle}`}>{m.cond_open_title()}</h3>
      <OpenConditional orders={open.data?.lists ?? null} onChanged={open.reload} />
    </section>
  );
}

function OpenConditional({ orders, onChanged }: { orders: ConditionalOrderOut[] | null; onChanged: () => void }) {
  const cancel = useCancelConditional();
  if (orders === null) return null;
  if (orders.length === 0) return <EmptyState text={m.cond_none()} />;
  const ask = (o: ConditionalOrderOut) =>
    openConfirm({
      title: m.cond_cancel_title(),
      message: m.cond_cancel_body(),
      confirmText: m.spot_cancel_confirm(),
      cancelText: m.spot_cancel_keep(),
      onConfirm: async () => {
        try {
          await cancel(o.id);
          toast.success(m.cond_cancelled());
        } catch (err) {
          toast.warning(err instanceof ApiFailure ? err.message : m.request_failed());
        }
        onChanged();
      },
    });
  const coin = (o: ConditionalOrderOut) => o.symbol.split("/")[0] ?? "";
  return (
    <ul className={s.list} data-testid="cond-open">
      {orders.map((o) => (
        <li key={o.id} className={s.item} data-testid="cond-open-item" data-cond-id={o.id} data-cond-type={o.type}>
          <span className={s[o.side]}>{o.side === "buy" ? m.spot_buy() : m.spot_sell()}</span>
          <span className={s.itemText}>
            {typeName(o.type)} · {formatMoney(o.num, coin(o))} {coin(o)} · {o.stop_price ? `${formatPrice(o.stop_price)} → ` : o.callback_bps !== null ? `${o.callback_bps / 100}% → ` : ""}
            {formatPrice(o.type === "oco" ? o.limit_price : o.price)}
            <span className="muted"> · {o.status === "submitted" ? m.cond_status_submitted() : m.cond_status_open()}</span>
          </span>
          <button type="button" className="btn btn-outline btn-small" onClick={() => ask(o)} data-testid="cond-cancel">
            {m.spot_cancel()}
          </button>
        </li>
      ))}
    </ul>
  );
}

function CancelAll({ pair, onDone }: { pair: PairRow; onDone: () => void }) {
  const cancelAll = useCancelAll();
  const name = `${pair.currency_name}/${pair.legal_name || "USDT"}`;
  return (
    <button
      type="button"
      className="btn btn-outline btn-small"
      data-testid="cancel-all"
      onClick={() =>
        openConfirm({
          title: m.cond_cancel_all_title({ pair: name }),
          message: m.cond_cancel_all_body(),
          confirmText: m.spot_cancel_confirm(),
          cancelText: m.spot_cancel_keep(),
          onConfirm: async () => {
            try {
              const r = await cancelAll(pair.currency_id);
              toast.success(m.cond_cancel_all_done({ orders: String(r.orders), conditionals: String(r.conditionals) }));
            } catch (err) {
              toast.warning(err instanceof ApiFailure ? err.message : m.request_failed());
            }
            onDone();
          },
        })
      }
    >
      {m.cond_cancel_all()}
    </button>
  );
}
