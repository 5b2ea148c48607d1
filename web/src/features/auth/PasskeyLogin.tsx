/**
 * "Sign in with a passkey" on the login page (issue #29): the browser offers the passkeys it holds
 * for this site, the server checks the answer and opens a session like a password login.
 */
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { m } from "../../i18n/index.ts";
import { safeRedirect } from "../../lib/nav.ts";
import { PasskeyCancelled, passkeysSupported, signInWithPasskey } from "../../lib/passkey.ts";
import { toast } from "../../lib/toast.ts";
import { Icon } from "../../components/Icon.tsx";
import { Spinner } from "../../components/States.tsx";
import { completeLogin } from "./api.ts";

export function PasskeyLogin() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [busy, setBusy] = useState(false);
  if (!passkeysSupported()) return null;

  const start = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const session = await signInWithPasskey();
      await completeLogin(session, "");
      toast.success(m.login_success());
      navigate(safeRedirect(params.get("redirect")), { replace: true });
    } catch (err) {
      if (err instanceof PasskeyCancelled) toast.error(err.message);
      // other failures: the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  return (
    <button type="button" className="btn btn-outline btn-block btn-large" onClick={() => void start()} disabled={busy} data-testid="login-passkey">
      {busy ? <Spinner size={16} /> : <Icon name="key" size={18} />}
      {m.login_passkey()}
    </button>
  );
}
