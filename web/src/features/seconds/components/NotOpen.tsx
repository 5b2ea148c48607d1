/** What /trade and /trade/lists show when this deployment has switched seconds contracts off (DESIGN §1 product switches). */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";

export function NotOpen() {
  return (
    <div className="state state-empty" data-testid="seconds-off">
      <Icon name="shield" size={40} />
      <h2>{m.sec_off_title()}</h2>
      <p>{m.sec_off_body()}</p>
      <Link to="/exchange" className="btn btn-outline btn-small">
        {m.tab_exchange()}
      </Link>
    </div>
  );
}
