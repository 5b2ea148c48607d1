/**
 * A sale (/launch/project?id=): price per accepted currency, the window with a live countdown,
 * the supply reserved by the exchange, what has been committed, one's cap, the vesting schedule,
 * the listing note and the terms; "Commit" opens a sheet where the user picks the currency and
 * amount, and a confirmation that states the source of the money (their own spot account, held
 * until the window ends) and that there is no early exit, before anything moves.
 */
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ProductGate } from "../../../components/ProductGate.tsx";
import { decimalsOf, isPositiveDecimal, toUnits } from "../../../lib/amount.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { ConfirmSheet } from "../../../components/ConfirmSheet.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { EmptyState, ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useCommit, useProjects, type LaunchProject } from "../api.ts";
import { windowState } from "../display.ts";
import { Clock, useNow, vestingText } from "./Clock.tsx";
import acct from "../../../components/account.module.css";
import s from "./launch.module.css";
import { KvRow } from "../../../components/KvRow.tsx";

export default function ProjectPage() {
  return (
    <ProductGate product="launch">
      <ProjectPageScreen />
    </ProductGate>
  );
}

function ProjectPageScreen() {
  const [params] = useSearchParams();
  const id = Number(params.get("id"));
  const q = useProjects();
  const [sheet, setSheet] = useState(false);
  const now = useNow(5000);
  if (q.loading) return <div className={acct.acctPage}><SkeletonBlock height={360} /></div>;
  if (q.error) return <ErrorState message={q.error.message} onRetry={q.reload} />;
  const p = q.data?.find((x) => x.id === id);
  if (!p) return <EmptyState text={m.launch_not_found()} />;
  const open = windowState(p, now) === "open";
  return (
    <div className={acct.acctPage} data-testid="launch-project">
      <section className="card">
        <div className={s.projectHead}>
          <span className={s.projectTitle}>{p.title}</span>
          <Clock project={p} />
        </div>
        <dl className={acct.kv}>
          {p.prices.map((x) => (
            <KvRow key={x.currency_id} label={m.launch_price_in({ currency: x.currency })} testId={`launch-price-${x.currency}`}>
              {formatExact(x.price)} {x.currency} / {p.token}
            </KvRow>
          ))}
          <KvRow label={m.launch_supply()} testId="launch-supply">
            {formatExact(p.supply)} {p.token}
          </KvRow>
          <KvRow label={m.launch_total_demand()} testId="launch-demand">
            {formatExact(p.total_demand)} {p.token}
          </KvRow>
          <KvRow label={m.launch_committers()}>{p.committers}</KvRow>
          <KvRow label={m.launch_cap()} testId="launch-cap">
            {formatExact(p.cap)} {p.token}
          </KvRow>
          <KvRow label={m.launch_window()}>
            {formatDateTime(p.start_at)} – {formatDateTime(p.end_at)}
          </KvRow>
          <KvRow label={m.launch_vesting()} testId="launch-vesting">
            {vestingText(p)}
          </KvRow>
          {p.listing_note !== "" && <KvRow label={m.launch_listing()}>{p.listing_note}</KvRow>}
          {p.mine && (
            <KvRow label={m.launch_mine()} testId="launch-mine">
              {formatExact(p.mine.amount)} {p.mine.currency}
            </KvRow>
          )}
        </dl>
        <p className="form-note">{m.launch_reserved({ supply: formatExact(p.supply), token: p.token })}</p>
      </section>
      <section className="card">
        <h3>{m.launch_terms_title()}</h3>
        <Terms />
      </section>
      {p.mine && (
        <p className="form-note">
          <Link to="/launch/my">{m.title_launch_my()}</Link>
        </p>
      )}
      <button type="button" className="btn btn-primary btn-block btn-large" disabled={!open} onClick={() => setSheet(true)} data-testid="launch-commit-open">
        {m.launch_commit()}
      </button>
      {sheet && <CommitSheet project={p} onClose={() => setSheet(false)} />}
    </div>
  );
}

function Terms() {
  return (
    <ol className={s.terms} data-testid="launch-terms">
      <li>{m.launch_terms_1()}</li>
      <li>{m.launch_terms_2()}</li>
      <li>{m.launch_terms_3()}</li>
      <li>{m.launch_terms_4()}</li>
    </ol>
  );
}

function CommitSheet({ project: p, onClose }: { project: LaunchProject; onClose: () => void }) {
  const commit = useCommit();
  const fixed = p.mine ? p.prices.find((x) => x.currency_id === p.mine!.currency_id) : undefined;
  const [currencyId, setCurrencyId] = useState(fixed?.currency_id ?? p.prices[0]!.currency_id);
  const [amount, setAmount] = useState("");
  const [error, setError] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const price = p.prices.find((x) => x.currency_id === currencyId)!;

  const check = (): string | null => {
    if (!isPositiveDecimal(amount)) return m.launch_err_amount();
    if (decimalsOf(amount) > 8) return m.launch_err_amount();
    // What is left under the cap (a check before sending; the database enforces it).
    const room = (toUnits(price.max_amount, 8) ?? 0n) - (p.mine && p.mine.currency_id === currencyId ? (toUnits(p.mine.amount, 8) ?? 0n) : 0n);
    if ((toUnits(amount, 8) ?? 0n) > room) return m.launch_err_cap({ max: formatExact(price.max_amount), currency: price.currency });
    return null;
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const problem = check();
    setError(problem ?? "");
    if (!problem) setConfirming(true);
  };
  const send = async () => {
    setBusy(true);
    try {
      await commit({ project_id: p.id, currency_id: currencyId, amount: amount.trim() });
      toast.success(m.launch_committed_toast({ amount: formatExact(amount), currency: price.currency }));
      onClose();
    } catch (err) {
      setConfirming(false);
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (confirming) {
    return (
      <ConfirmSheet title={m.launch_confirm_title()} onClose={() => setConfirming(false)} onConfirm={() => void send()} confirmText={m.launch_confirm_ok({ amount: formatExact(amount), currency: price.currency })} busy={busy} testId="launch-confirm" confirmTestId="launch-confirm-ok" cancelStyle="btn-outline">
        <p className={s.sheetNote}>{m.launch_confirm_source({ amount: formatExact(amount), currency: price.currency, end: formatDateTime(p.end_at) })}</p>
        <p className={s.sheetNote}>{m.launch_confirm_early()}</p>
        <Terms />
      </ConfirmSheet>
    );
  }
  return (
    <Modal
      title={m.launch_commit_title({ title: p.title })}
      onClose={onClose}
      testId="launch-sheet"
      dismiss={{ outline: true }}
      actions={
        <button type="submit" form="launch-commit-form" className="btn btn-primary" data-testid="launch-sheet-next">
          {m.launch_commit()}
        </button>
      }
    >
      <form id="launch-commit-form" className="form" onSubmit={onSubmit} noValidate>
        <div className="field">
          <span className="field-label">{m.launch_pay_with()}</span>
          <div className={`${acct.chips} ${acct.chips2}`} role="radiogroup" aria-label={m.launch_pay_with()}>
            {p.prices.map((x) => (
              <button
                key={x.currency_id}
                type="button"
                role="radio"
                aria-checked={currencyId === x.currency_id}
                className={currencyId === x.currency_id ? "active" : ""}
                disabled={fixed !== undefined && fixed.currency_id !== x.currency_id}
                onClick={() => setCurrencyId(x.currency_id)}
                data-testid={`launch-currency-${x.currency}`}
              >
                <span>{x.currency}</span>
                <small className="num">{formatExact(x.price)}</small>
              </button>
            ))}
          </div>
        </div>
        <label className="field">
          <span className="field-label">{m.launch_amount()}</span>
          <input className="input num" inputMode="decimal" value={amount} onChange={(e) => { setAmount(e.target.value); setError(""); }} placeholder="0" data-testid="launch-amount" />
          <span className="form-note">{m.launch_max({ max: formatExact(price.max_amount), currency: price.currency })}</span>
          {error && (
            <span className="field-error" role="alert" data-testid="launch-error">
              {error}
            </span>
          )}
        </label>
        <p className={s.sheetNote}>{m.launch_source_note({ currency: price.currency })}</p>
      </form>
    </Modal>
  );
}
