/**
 * Price alerts (issue #30): choose a pair and when to be told (the price rises to a level, falls to
 * a level, or moves by a percent within 1 h or 24 h), see one's alerts waiting and fired, delete
 * one. A fired alert arrives as a notification (a toast on whatever screen is open, and the inbox).
 */
import { useState, type FormEvent } from "react";
import { MAX_ACTIVE_ALERTS, type Alert, type AlertKind, type AlertWindow } from "../../../../../schemas/alert.ts";
import { m } from "../../../i18n/index.ts";
import { formatClock, formatPrice } from "../../../lib/format.ts";
import { useSession } from "../../../lib/session.ts";
import { showToast } from "../../../lib/toast.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useAlerts, useCreateAlert, useDeleteAlert, usePairs } from "../api.ts";
import s from "./alerts.module.css";

const KINDS: AlertKind[] = ["above", "below", "move"];
const WINDOWS: AlertWindow[] = ["1h", "24h"];

const kindLabel = (k: AlertKind) => (k === "above" ? m.alerts_kind_above() : k === "below" ? m.alerts_kind_below() : m.alerts_kind_move());
const windowLabel = (w: AlertWindow) => (w === "1h" ? m.alerts_window_1h() : m.alerts_window_24h());

function describe(a: Alert): string {
  if (a.kind === "move") return m.alerts_desc_move({ symbol: a.symbol, percent: a.percent ?? "", window: windowLabel(a.window ?? "24h") });
  const price = formatPrice(a.price);
  return a.kind === "above" ? m.alerts_desc_above({ symbol: a.symbol, price }) : m.alerts_desc_below({ symbol: a.symbol, price });
}

export default function AlertsPage() {
  const session = useSession();
  const pairs = usePairs();
  const alerts = useAlerts();
  const create = useCreateAlert();
  const remove = useDeleteAlert();
  const [currencyId, setCurrencyId] = useState<number>(Number(session.currentCurrencyID) || 1);
  const [kind, setKind] = useState<AlertKind>("above");
  const [price, setPrice] = useState("");
  const [percent, setPercent] = useState("");
  const [window, setWindow] = useState<AlertWindow>("1h");
  const [busy, setBusy] = useState(false);

  const all = (Array.isArray(pairs.data) ? pairs.data : []).flatMap((g) => g.quotation);
  const pair = all.find((p) => p.currency_id === currencyId) ?? all[0];
  const list = alerts.data ?? [];
  const waiting = list.filter((a) => a.status === "active").length;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!pair || busy) return;
    setBusy(true);
    try {
      await create(
        kind === "move"
          ? { currency_id: pair.currency_id, legal_id: pair.legal_id, kind, percent: percent.trim(), window }
          : { currency_id: pair.currency_id, legal_id: pair.legal_id, kind, price: price.trim() },
      );
      showToast(m.alerts_created(), "success");
      setPrice("");
      setPercent("");
    } catch {
      // `call` has shown the server's reason.
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={`page-pad ${s.page}`} data-testid="alerts">
      <form className={`form ${s.form}`} onSubmit={submit} noValidate>
        <h2 className={s.title}>{m.alerts_new()}</h2>
        <label className="field">
          <span className="field-label">{m.alerts_pair()}</span>
          <select className="input" value={pair?.currency_id ?? ""} onChange={(e) => setCurrencyId(Number(e.target.value))} data-testid="alert-pair">
            {all.map((p) => (
              <option key={p.id} value={p.currency_id}>
                {p.currency_name}/{p.legal_name}
              </option>
            ))}
          </select>
        </label>
        {pair && <p className={`${s.last} muted num`} data-testid="alert-last">{m.alerts_last({ price: formatPrice(pair.now_price) })}</p>}
        <div className="field">
          <span className="field-label">{m.alerts_kind_label()}</span>
          <div className="segmented" role="radiogroup" aria-label={m.alerts_kind_label()}>
            {KINDS.map((k) => (
              <button type="button" key={k} role="radio" aria-checked={kind === k} className={kind === k ? "active" : ""} onClick={() => setKind(k)} data-testid={`alert-kind-${k}`}>
                {kindLabel(k)}
              </button>
            ))}
          </div>
        </div>
        {kind === "move" ? (
          <>
            <label className="field">
              <span className="field-label">{m.alerts_percent()}</span>
              <input className="input num" inputMode="decimal" value={percent} maxLength={6} onChange={(e) => setPercent(e.target.value)} data-testid="alert-percent" />
            </label>
            <div className="field">
              <span className="field-label">{m.alerts_window()}</span>
              <div className="segmented" role="radiogroup" aria-label={m.alerts_window()}>
                {WINDOWS.map((w) => (
                  <button type="button" key={w} role="radio" aria-checked={window === w} className={window === w ? "active" : ""} onClick={() => setWindow(w)} data-testid={`alert-window-${w}`}>
                    {windowLabel(w)}
                  </button>
                ))}
              </div>
            </div>
          </>
        ) : (
          <label className="field">
            <span className="field-label">{m.alerts_price({ quote: pair?.legal_name ?? "USDT" })}</span>
            <input className="input num" inputMode="decimal" value={price} maxLength={30} onChange={(e) => setPrice(e.target.value)} data-testid="alert-price" />
          </label>
        )}
        <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || !pair} data-testid="alert-create">
          {busy && <Spinner size={16} />}
          {m.alerts_create()}
        </button>
        <p className="form-note muted">{m.alerts_rule({ max: MAX_ACTIVE_ALERTS })}</p>
      </form>

      <section className={s.mine}>
        <h2 className={s.title}>{m.alerts_mine({ count: waiting, max: MAX_ACTIVE_ALERTS })}</h2>
        {alerts.loading && !alerts.data ? (
          <SkeletonList rows={3} />
        ) : alerts.error && !alerts.data ? (
          <ErrorState message={alerts.error.message} onRetry={alerts.reload} />
        ) : list.length === 0 ? (
          <EmptyState text={m.alerts_empty()} />
        ) : (
          <ul className={s.list}>
            {list.map((a) => (
              <li key={a.id} className={s.item} data-testid="alert-item" data-status={a.status}>
                <div className={s.itemText}>
                  <span className={s.itemRule}>{describe(a)}</span>
                  <span className={`muted num ${s.itemState}`}>
                    {a.status === "fired" ? `${m.alerts_fired_at({ price: formatPrice(a.fired_price) })} · ${formatClock(a.fired_at ?? 0)}` : m.alerts_waiting()}
                  </span>
                </div>
                <button
                  type="button"
                  className={`btn btn-small ${s.delete}`}
                  onClick={() => void remove(a.id).then(() => showToast(m.alerts_deleted(), "success"), () => undefined)}
                  data-testid="alert-delete"
                >
                  {m.alerts_delete()}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
