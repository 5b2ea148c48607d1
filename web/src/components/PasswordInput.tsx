/** A password field with a show/hide toggle. */
import { useState, type InputHTMLAttributes } from "react";
import { m } from "../i18n/index.ts";
import { Icon } from "./Icon.tsx";

export function PasswordInput(props: Omit<InputHTMLAttributes<HTMLInputElement>, "type">) {
  const [visible, setVisible] = useState(false);
  return (
    <div className="input-wrap">
      <input {...props} type={visible ? "text" : "password"} className="input" autoCapitalize="off" spellCheck={false} />
      <button
        type="button"
        className="input-addon icon-btn"
        onClick={() => setVisible((v) => !v)}
        aria-label={visible ? m.hide_password() : m.show_password()}
        aria-pressed={visible}
      >
        <Icon name={visible ? "eye" : "eyeOff"} size={20} />
      </button>
    </div>
  );
}
