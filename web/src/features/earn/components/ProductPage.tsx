/**
 * One savings product (/earn/product?id=): its terms before any money moves (term, APR, limits,
 * how interest is computed and paid, what early exit costs, how the reserve works, where the
 * interest comes from), the amount with one's spot balance and the interest it would earn, and a
 * confirmation sheet that states the terms, the source of the principal (one's own spot account,
 * frozen and still one's own) and of the interest (the budget, with what remains) again.
 */
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { m, useLocale } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { formatDateTime, formatMoney, formatMoneyMoved } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { loginPath } from "../../../lib/nav.ts";
import { useLoggedIn } from "../../../lib/session.ts";
import { ConfirmSheet } from "../../../components/ConfirmSheet.tsx";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { EmptyState, ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useProducts, useSpot, useSubscribe, type EarnProduct } from "../api.ts";
import { sourceText, termLabel } from "../labels.ts";
import { amountProblem, dailyInterest, maturityAt, termInterest, type AmountProblem } from "../terms.ts";
import acct from "../../../components/account.module.css";
import s from "./earn.module.css";

function problemText(p: AmountProblem, product: EarnProduct): string | null {
  const c = product.currency;
  switch (p) {
    case "invalid":
      return errText("invalid_amount");
    case "below_min":
      return errText("below_min", { min: `${formatMoney(product.min_amount, c)} ${c}` });
    case "above_room":
      return errText("earn_user_max", { max: formatMoney(product.max_amount, c), currency: c });
    case "above_budget":
      return errText("earn_budget", { max: formatMoney(product.budget_covers, c), currency: c });
    case "above_balance":
      return errText("insufficient_balance");
    default:
      return null;
  }
}

/** The product's rules, as the detail and the confirmation sheet state them. */
function Rules({ p, now }: { p: EarnProduct; now: number }) {
  return (
    <ul className={s.rules} data-testid="earn-rules">
      <li>{m.earn_rule_principal()}</li>
      <li>{m.earn_rule_interest()}</li>
      {p.kind === "fixed" ? (
        <>
          <li>{m.earn_rule_fixed({ day: formatDateTime(maturityAt(now, p.term_days)), days: String(p.term_days) })}</li>
          <li data-testid="earn-rule-early">{m.earn_rule_early()}</li>
          <li>{m.earn_rule_fixed_reserve()}</li>
        </>
      ) : (
        <>
          <li>{m.earn_rule_flexible()}</li>
          <li data-testid="earn-rule-reserve">{m.earn_rule_reserve({ days: String(p.reserve_days) })}</li>
        </>
      )}
      <li data-testid="earn-rule-source">{sourceText(p)}</li>
    </ul>
  );
}

function Detail({ p }: { p: EarnProduct }) {
  const navigate = useNavigate();
  const spot = useSpot();
  const subscribe = useSubscribe();
  const loggedIn = useLoggedIn();
  const [amount, setAmount] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [now] = useState(() => Date.now());
  const c = p.currency;
  const available = spot.data?.find((r) => r.currency === p.currency_id)?.change_balance ?? null;
  const daily = dailyInterest(amount, p.apr_bps, p.scale);
  const total = p.kind === "fixed" ? termInterest(amount, p.apr_bps, p.term_days, p.scale) : null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Open to guests (issue #26): subscribing asks them to log in and brings them back here.
    if (!loggedIn) return navigate(loginPath());
    const problem = problemText(amountProblem(amount, p, available, p.scale), p);
    setError(problem);
    if (!problem) setConfirming(true);
  };

  const send = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const pos = await subscribe(p.id, amount.trim());
      setConfirming(false);
      toast.success(m.earn_subscribed_toast({ amount: formatMoneyMoved(pos.amount, c), currency: c }));
      navigate("/earn/positions");
    } catch (err) {
      setConfirming(false);
      const f = err instanceof ApiFailure ? err : null;
      if (f?.kind === "997" || f?.kind === "998" || f?.kind === "999") return; // handled by the API client
      setError(f?.message ?? m.request_failed());
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className={acct.acctPage} data-testid="earn-product-page">
      <section className={s.card}>
        <div className={s.cardHead}>
          <span className={s.coin}>
            {c} <span className="badge badge-none">{termLabel(p)}</span>
          </span>
          <span className={s.apr}>
            <span className={`${s.aprValue} num`}>{p.apr}%</span>
            <span className={s.aprLabel}>{m.earn_apr()}</span>
          </span>
        </div>
        <dl className={acct.kv}>
          <div className={acct.kvRow}>
            <dt>{m.earn_term()}</dt>
            <dd>{termLabel(p)}</dd>
          </div>
          <div className={acct.kvRow}>
            <dt>{m.earn_limits()}</dt>
            <dd className="num">
              {formatMoney(p.min_amount, c)} – {formatMoney(p.max_amount, c)} {c}
            </dd>
          </div>
          <div className={acct.kvRow}>
            <dt>{m.earn_max_now()}</dt>
            <dd className="num" data-testid="earn-max-now">
              {formatMoney(p.budget_covers, c)} {c}
            </dd>
          </div>
        </dl>
      </section>

      <section>
        <h2 className={s.sectionTitle}>{m.earn_terms_title()}</h2>
        <Rules p={p} now={now} />
      </section>

      {p.status === "closed" ? (
        <p className={`${acct.notice} ${acct.noticeWarn}`}>{m.earn_closed_note()}</p>
      ) : (
        <form className={acct.recordList} onSubmit={submit} noValidate>
          <label className="field">
            <span className="field-label">{m.earn_amount()}</span>
            <span className={s.amountRow}>
              <input
                className="input num"
                inputMode="decimal"
                autoComplete="off"
                placeholder={m.earn_amount_placeholder({ min: `${formatMoney(p.min_amount, c)} ${c}` })}
                value={amount}
                onChange={(e) => {
                  setAmount(e.target.value.replace(/[^\d.]/g, ""));
                  setError(null);
                }}
                aria-invalid={error !== null}
                data-testid="earn-amount"
              />
            </span>
            {error && (
              <span className="field-error" data-testid="earn-amount-error">
                {error}
              </span>
            )}
          </label>
          <dl className={acct.kv}>
            <div className={acct.kvRow}>
              <dt>{m.earn_available()}</dt>
              <dd className="num" data-testid="earn-available">
                {!loggedIn ? "--" : spot.loading ? <Spinner size={14} /> : `${formatMoney(available ?? "0", c)} ${c}`}
              </dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.earn_daily_estimate()}</dt>
              <dd className="num" data-testid="earn-daily">
                {daily === null ? "--" : `${formatMoneyMoved(daily, c)} ${c}`}
              </dd>
            </div>
            {p.kind === "fixed" && (
              <div className={acct.kvRow}>
                <dt>{m.earn_total_estimate()}</dt>
                <dd className="num" data-testid="earn-total">
                  {total === null ? "--" : `${formatMoneyMoved(total, c)} ${c}`}
                </dd>
              </div>
            )}
          </dl>
          <button type="submit" className="btn btn-primary btn-block btn-large" disabled={(loggedIn && amount.trim() === "") || busy} data-testid="earn-subscribe">
            {m.earn_subscribe()}
          </button>
        </form>
      )}
      <Link to="/earn/positions" className={`text-btn ${acct.centerBtn}`}>
        {m.earn_my_positions()}
      </Link>

      {confirming && (
        <ConfirmSheet title={m.earn_confirm_title()} onClose={() => setConfirming(false)} onConfirm={() => void send()} confirmText={m.confirm()} busy={busy} testId="earn-confirm" confirmTestId="earn-confirm-button">
          <dl className={acct.kv}>
            <div className={`${acct.kvRow} ${acct.strong}`}>
              <dt>{m.earn_amount()}</dt>
              <dd className="num" data-testid="earn-confirm-amount">
                {formatMoneyMoved(amount, c)} {c}
              </dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.earn_confirm_from()}</dt>
              <dd>{m.earn_confirm_from_value()}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.earn_term()}</dt>
              <dd>{p.kind === "fixed" ? `${termLabel(p)} · ${formatDateTime(maturityAt(now, p.term_days))}` : termLabel(p)}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.earn_apr()}</dt>
              <dd className="num">{p.apr}%</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{p.kind === "fixed" ? m.earn_total_estimate() : m.earn_daily_estimate()}</dt>
              <dd className="num">{`${formatMoneyMoved((p.kind === "fixed" ? total : daily) ?? "0", c)} ${c}`}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.earn_confirm_interest_from()}</dt>
              <dd>{m.earn_confirm_interest_value({ remaining: formatMoney(p.remaining, c), currency: c })}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.earn_confirm_exit()}</dt>
              <dd data-testid="earn-confirm-exit">{p.kind === "fixed" ? m.earn_rule_early() : m.earn_confirm_exit_flexible()}</dd>
            </div>
          </dl>
        </ConfirmSheet>
      )}
    </div>
  );
}

function Product() {
  useLocale();
  const [params] = useSearchParams();
  const id = Number(params.get("id"));
  const products = useProducts();
  if (products.loading) return <SkeletonBlock height={320} />;
  if (products.error) return <ErrorState message={products.error.message} onRetry={products.reload} />;
  const p = products.data?.find((x) => x.id === id);
  if (!p) return <EmptyState text={m.earn_closed_note()} />;
  return <Detail key={p.id} p={p} />;
}

export default function ProductPage() {
  return (
    <ProductGate product="earn">
      <Product />
    </ProductGate>
  );
}
