/**
 * The risk disclosure accepted once before the first contract (issue #9 §5): plain words on what
 * fixed-payout contracts do to most retail users and where they are banned for retail clients.
 * Acceptance is remembered per user on this device (localStorage; hooks.ts useRiskAccepted).
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import { Modal } from "../../../components/Modal.tsx";
import s from "./seconds.module.css";

export function RiskDialog({ onAccept, onClose }: { onAccept: () => void; onClose: () => void }) {
  const [ticked, setTicked] = useState(false);
  return (
    <Modal
      title={m.sec_risk_title()}
      onClose={onClose}
      testId="risk-dialog"
      dismiss
      actions={
        <button type="button" className="btn btn-primary" disabled={!ticked} onClick={onAccept} data-testid="risk-accept">
          {m.sec_risk_accept()}
        </button>
      }
    >
      <div className={s.risk}>
        <p>{m.sec_risk_p1()}</p>
        <p>{m.sec_risk_p2()}</p>
        <p>{m.sec_risk_p3()}</p>
        <p className="muted">{m.sec_risk_remembered()}</p>
        <label className="checkbox">
          <input type="checkbox" checked={ticked} onChange={(e) => setTicked(e.target.checked)} data-testid="risk-tick" />
          <span className="checkbox-box" aria-hidden="true">
            <Icon name="check" size={14} />
          </span>
          <span>{m.sec_risk_tick()}</span>
        </label>
      </div>
    </Modal>
  );
}
