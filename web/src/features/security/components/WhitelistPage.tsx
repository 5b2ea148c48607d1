/**
 * The withdrawal whitelist and the settings lock (issue #29). With the whitelist on, withdrawals go
 * only to the address book, and an address added while it is on opens 24 hours later. The lock
 * freezes the whitelist, the address book, the second factors and the anti-phishing code for a
 * number of days; nobody can lift it early. Both are confirmed with the second factor.
 */
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import { Icon } from "../../../components/Icon.tsx";
import { useSecondFactor } from "../../../components/SecondFactors.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useGuards, useLockSettings, useSetWhitelist } from "../api.ts";
import { guardFailure, NeedsFactor } from "./guardForm.tsx";
import acct from "../../../components/account.module.css";
import { Field } from "../../../components/Field.tsx";

export default function WhitelistPage() {
  const guards = useGuards();
  const setWhitelist = useSetWhitelist();
  const lock = useLockSettings();
  const has = { totp: !!guards.data?.totp_enabled, passkey: (guards.data?.passkeys ?? 0) > 0 };
  const listFactor = useSecondFactor(has, "whitelist");
  const lockFactor = useSecondFactor(has, "lock");
  const [days, setDays] = useState("7");
  const [daysError, setDaysError] = useState("");
  const [busy, setBusy] = useState<"list" | "lock" | null>(null);

  if (guards.error && !guards.data) return <ErrorState message={guards.error.message} onRetry={guards.reload} />;
  if (!guards.data) return <div className={acct.acctPage}><SkeletonBlock height={320} /></div>;
  const g = guards.data;
  const noFactor = !has.totp && !has.passkey;

  const toggle = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy("list");
    try {
      const f = await listFactor.collect();
      if (!f) return;
      const next = await setWhitelist(!g.whitelist, f);
      toast.success(next.whitelist ? m.sec_whitelist_on_done() : m.sec_whitelist_off_done());
    } catch (err) {
      guardFailure(err, listFactor.setError);
    } finally {
      setBusy(null);
    }
  };

  const submitLock = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const n = Number(days);
    if (!/^\d{1,3}$/.test(days) || n < 1 || n > 365) {
      setDaysError(errText("lock_days"));
      return;
    }
    openConfirm({
      title: m.sec_lock_title(),
      message: m.sec_lock_confirm({ days: n }),
      confirmText: m.sec_lock_button(),
      cancelText: m.cancel(),
      onConfirm: () => {
        void (async () => {
          setBusy("lock");
          try {
            const f = await lockFactor.collect();
            if (!f) return;
            await lock(n, f);
            toast.success(m.sec_lock_done());
          } catch (err) {
            guardFailure(err, lockFactor.setError);
          } finally {
            setBusy(null);
          }
        })();
      },
    });
  };

  return (
    <div className={acct.acctPage} data-testid="whitelist-page">
      <div className={`${acct.lockPanel} ${g.whitelist ? acct.ok : ""}`}>
        <Icon name="records" size={28} />
        <strong data-testid="whitelist-state">{g.whitelist ? m.sec_whitelist_on_title() : m.sec_whitelist_off_title()}</strong>
        <span className="muted">{m.sec_whitelist_explain()}</span>
        <Link to="/security/addresses">{m.sec_addresses_title()}</Link>
      </div>

      {g.locked_until_text ? (
        <div className={`${acct.lockPanel} ${acct.bad}`} data-testid="lock-state">
          <Icon name="key" size={28} />
          <strong>{m.sec_locked_until({ time: g.locked_until_text })}</strong>
          <span className="muted">{m.sec_lock_explain()}</span>
        </div>
      ) : noFactor ? (
        <NeedsFactor />
      ) : (
        <>
          <form className="form card" onSubmit={toggle} noValidate>
            <h2 className="section-title">{m.sec_whitelist_title()}</h2>
            {listFactor.fields}
            <button type="submit" className={`btn btn-block ${g.whitelist ? "btn-outline" : "btn-primary"}`} disabled={busy !== null} data-testid="whitelist-toggle">
              {busy === "list" && <Spinner size={16} />}
              {g.whitelist ? m.sec_whitelist_turn_off() : m.sec_whitelist_turn_on()}
            </button>
          </form>
          <form className="form card" onSubmit={submitLock} noValidate>
            <h2 className="section-title">{m.sec_lock_title()}</h2>
            <p className="muted">{m.sec_lock_explain()}</p>
            <Field label={m.sec_lock_days()} error={daysError}>
              <input
                className="input num"
                inputMode="numeric"
                maxLength={3}
                value={days}
                onChange={(e) => {
                  setDays(e.target.value.replace(/\D/g, "").slice(0, 3));
                  setDaysError("");
                }}
                aria-invalid={!!daysError}
                data-testid="lock-days"
              />
            </Field>
            {lockFactor.fields}
            <button type="submit" className={`btn btn-block ${acct.btnDanger}`} disabled={busy !== null} data-testid="lock-submit">
              {busy === "lock" && <Spinner size={16} />}
              {m.sec_lock_button()}
            </button>
          </form>
        </>
      )}
    </div>
  );
}
