/** Placeholder for screens another part of the team is still building. */
import { Link } from "react-router";
import { m, useLocale } from "../i18n/index.ts";
import { Icon } from "./Icon.tsx";

export function ComingSoon({ title }: { title?: string }) {
  useLocale();
  return (
    <div className="coming-soon">
      <div className="coming-soon-icon">
        <Icon name="build" size={34} />
      </div>
      <h2>{title ?? m.coming_soon_title()}</h2>
      <p>{m.coming_soon_body()}</p>
      <Link to="/" className="btn btn-outline btn-small">
        {m.back_home()}
      </Link>
    </div>
  );
}
