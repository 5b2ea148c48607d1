/** Language choice (spec §2): six languages by their native names; the switch is immediate and remembered. */
import { bcp47, locales, m, nativeNames, setAppLocale, useLocale, type Locale } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import "./settings.css";

export default function LangPage() {
  const current = useLocale();
  const choose = (l: Locale) => {
    if (l !== current) void setAppLocale(l);
  };
  return (
    <div className="page-pad">
      <p className="lang-hint muted">{m.lang_hint()}</p>
      <ul className="lang-list" role="radiogroup" aria-label={m.title_lang()}>
        {locales.map((l) => (
          <li key={l} role="none">
            <button
              type="button"
              role="radio"
              aria-checked={l === current}
              className={`lang-item ${l === current ? "active" : ""}`}
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
