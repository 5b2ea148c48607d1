/**
 * What a screen gated on the proven e-mail or phone (issue #29: deposit, withdrawal, API keys)
 * shows instead of its form: why, and a button to the banner's code field (lib/contact.ts).
 */
import type { ComponentType } from "react";
import { m } from "../i18n/index.ts";
import { focusContactBanner, useContactProven } from "../lib/contact.ts";
import acct from "./account.module.css";
import s from "./ContactGate.module.css";

export function ContactGate({ text }: { text: string }) {
  return (
    <section className={s.gate} data-testid="contact-gate">
      <div className={`${acct.notice} ${acct.noticeWarn} ${s.why}`}>
        <p>{text}</p>
        <p>{m.contact_gate_why()}</p>
      </div>
      <button type="button" className="btn btn-primary btn-block" onClick={focusContactBanner} data-testid="contact-gate-action">
        {m.contact_gate_action()}
      </button>
    </section>
  );
}

/** A whole screen gated on the proven address: `Screen` once proven, else the gate with `text()`. */
export function withProvenContact(Screen: ComponentType, text: () => string): ComponentType {
  return function ProvenContactScreen() {
    if (!useContactProven()) {
      return (
        <div className={acct.acctPage}>
          <ContactGate text={text()} />
        </div>
      );
    }
    return <Screen />;
  };
}
