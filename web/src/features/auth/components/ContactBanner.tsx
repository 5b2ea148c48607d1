/**
 * The banner every screen shows until the account's e-mail or phone is proven (issue #29): what is
 * held back until then, the 6-digit code field, and "send again" with its countdown (one code a
 * minute; the server says how long is left). A gated screen's "Enter the code" scrolls here and
 * focuses the field (lib/contact.ts). Entering the code opens deposits, withdrawals, password
 * resets and API keys at once, in every tab.
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useStore } from "@nanostores/react";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { $contactFocus, markContactProven } from "../../../lib/contact.ts";
import { useSession } from "../../../lib/session.ts";
import { toast } from "../../../lib/toast.ts";
import { useCountdown } from "../../../lib/useCountdown.ts";
import { Spinner } from "../../../components/States.tsx";
import { fetchContactState, resendContactCode, verifyContactCode } from "../api.ts";
import s from "./ContactBanner.module.css";

/** Seconds a `code_wait` answer asks for ("… 42 s …"), or null. */
function waitSeconds(err: unknown): number | null {
  if (!(err instanceof ApiFailure) || err.code !== "code_wait") return null;
  const n = /(\d+)/.exec(err.message);
  return n ? Number(n[1]) : null;
}

export default function ContactBanner() {
  const session = useSession();
  const focus = useStore($contactFocus);
  const [channel, setChannel] = useState<"email" | "sms">(/^\d+$/.test(session.accountNum) ? "sms" : "email");
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [sending, setSending] = useState(false);
  const [left, startCountdown] = useCountdown();
  const root = useRef<HTMLElement>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const controller = new AbortController();
    fetchContactState(controller.signal)
      .then((st) => {
        if (st.contact_verified) markContactProven();
        setChannel(st.channel);
        startCountdown(st.resend_in);
      })
      .catch(() => undefined);
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    if (focus === 0) return;
    root.current?.scrollIntoView({ block: "start", behavior: "smooth" });
    input.current?.focus({ preventScroll: true });
  }, [focus]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!/^\d{6}$/.test(code)) {
      setError(m.contact_code_format());
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError("");
    try {
      const st = await verifyContactCode(code);
      if (st.contact_verified) {
        markContactProven();
        toast.success(m.contact_done());
      }
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : m.request_failed());
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    if (sending || left > 0) return;
    setSending(true);
    setError("");
    try {
      const st = await resendContactCode();
      if (st.contact_verified) markContactProven();
      startCountdown(st.resend_in);
      toast.success(m.contact_sent());
    } catch (err) {
      const wait = waitSeconds(err);
      if (wait !== null) startCountdown(wait);
      else setError(err instanceof ApiFailure ? err.message : m.request_failed());
    } finally {
      setSending(false);
    }
  };

  const sms = channel === "sms";
  return (
    <section ref={root} className={s.banner} role="region" aria-labelledby="contact-banner-title" data-testid="contact-banner">
      <h2 id="contact-banner-title" className={s.title}>
        {sms ? m.contact_banner_title_sms() : m.contact_banner_title()}
      </h2>
      <p className={s.text}>
        {m.contact_banner_text({ account: session.accountNum })}
      </p>
      <form className={s.row} onSubmit={submit} noValidate>
        <input
          ref={input}
          className={`input ${s.code}`}
          name="contact-code"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          placeholder={m.contact_code_placeholder()}
          aria-label={m.contact_code_label()}
          aria-invalid={error !== ""}
          aria-describedby="contact-banner-error"
          value={code}
          onChange={(e) => {
            setCode(e.target.value.replace(/\D/g, ""));
            setError("");
          }}
          data-testid="contact-code"
        />
        <button type="submit" className={`btn btn-primary ${s.confirm}`} disabled={busy} data-testid="contact-confirm">
          {busy ? <Spinner size={14} /> : m.contact_confirm()}
        </button>
      </form>
      <div className={s.foot}>
        <span id="contact-banner-error" className={s.error} role="alert" data-testid="contact-error">
          {error}
        </span>
        <button type="button" className={`text-btn ${s.resend}`} onClick={() => void resend()} disabled={sending || left > 0} data-testid="contact-resend">
          {sending ? <Spinner size={12} /> : left > 0 ? m.resend_in({ seconds: left }) : m.contact_resend()}
        </button>
      </div>
    </section>
  );
}
