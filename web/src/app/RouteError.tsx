/** Shown when a screen throws while rendering (a bug) or a path does not exist. */
import { Link, useRouteError } from "react-router";
import { m, useLocale } from "../i18n/index.ts";
import { Icon } from "../components/Icon.tsx";
import "./shell.module.css";

export function RouteError() {
  useLocale();
  const error = useRouteError();
  if (error) console.error(error);
  return (
    <div className="fatal">
      <Icon name="alert" size={40} />
      <h1>{m.something_wrong()}</h1>
      <p>{m.something_wrong_body()}</p>
      <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
        {m.reload_page()}
      </button>
    </div>
  );
}

export function NotFound() {
  useLocale();
  return (
    <div className="state state-empty">
      <Icon name="empty" size={40} />
      <p>{m.not_found_body()}</p>
      <Link to="/" className="btn btn-outline btn-small">
        {m.back_home()}
      </Link>
    </div>
  );
}
