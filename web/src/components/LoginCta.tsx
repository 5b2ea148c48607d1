/**
 * "Log in to …" in the place of something that is the user's own (balances, orders, positions)
 * on a screen open to guests: a button to the login screen that returns here afterwards.
 */
import { Link } from "react-router";
import { useLocale } from "../i18n/index.ts";
import { loginPath } from "../lib/nav.ts";

export function LoginCta({ text, testId = "login-cta", block = false, back }: { text: string; testId?: string; block?: boolean; back?: string }) {
  useLocale();
  return (
    <div className="login-cta" data-testid={`${testId}-box`}>
      <Link to={loginPath(back)} className={`btn btn-primary ${block ? "btn-block" : "btn-small"}`} data-testid={testId}>
        {text}
      </Link>
    </div>
  );
}
