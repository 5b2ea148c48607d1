/** Help centre (spec §2): a list of help articles; each opens the article page. */
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ArticleList } from "./ArticleList.tsx";
import s from "./news.module.css";

export default function HelpCenterPage() {
  return (
    <div>
      <div className={s.helpHero}>
        <Icon name="help" size={28} />
        <div>
          <h2>{m.help_heading()}</h2>
          <p className="muted">{m.help_sub()}</p>
        </div>
      </div>
      <ArticleList variant="help" />
    </div>
  );
}
