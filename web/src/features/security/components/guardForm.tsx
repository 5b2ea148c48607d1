/** Pieces shared by the guard screens (anti-phishing code, whitelist and lock, passkeys). */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { PasskeyCancelled } from "../../../lib/passkey.ts";
import { toast } from "../../../lib/toast.ts";

/**
 * Shows a failure of a guarded change: a cancelled passkey ceremony as a toast, a wrong or missing
 * second factor under its field (other refusals were shown by the API client).
 */
export function guardFailure(err: unknown, setFactorError: (message: string) => void): void {
  if (err instanceof PasskeyCancelled) toast.error(err.message);
  else if (err instanceof ApiFailure && err.code && /^(totp_|passkey_)/.test(err.code)) setFactorError(err.message);
}

/** What an account without a second factor does first. */
export function NeedsFactor() {
  return (
    <div className="card" data-testid="needs-factor">
      <p className="muted">{m.sec_factor_none()}</p>
      <div className="form-row-end">
        <Link to="/security/authenticator">{m.sec_totp_title()}</Link>
        {" · "}
        <Link to="/security/passkeys">{m.sec_passkeys_title()}</Link>
      </div>
    </div>
  );
}
