/** Language choice (spec §2): six languages by their native names; the switch is immediate and remembered. */
import { bcp47, locales, m, nativeNames, setAppLocale, useLocale, type Locale } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import s from "./LangPage.module.css";

export default function LangPage() {
  const current = useLocale();
  const choose = (l: Locale) => {
    if (l !== current) void setAppLocale(l);
  };
  return (
    <div className="page-pad">
      <p className={`${s.langHint} muted`}>{m.lang_hint()}</p>
      <ul className={s.langList} role="radiogroup" aria-label={m.title_lang()}>
        {locales.map((l) => (
          <li key={l} role="none">
            <button
              type="button"
              role="radio"
              aria-checked={l === current}
              className={`${s.langItem} ${l === current ? "active" : ""}`}
              onClick={() => choose(l)}
              lang={bcp47[l]}
              data-testid={`lang-${l}`}
            >
              <span>{nativeNames[l]}</span>
              {l === current && <Icon name="check" size={20} />}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
