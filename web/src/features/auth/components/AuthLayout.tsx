/** The brand block and card shared by login, register and password recovery. */
import type { ReactNode } from "react";
import { LogoMark } from "../../../components/Icon.tsx";
import s from "./auth.module.css";

export function AuthLayout({ heading, sub, children }: { heading: string; sub?: string; children: ReactNode }) {
  return (
    <div className={s.auth}>
      <div className={s.authHero}>
        <LogoMark size={44} />
        <h2 className={s.authHeading}>{heading}</h2>
        {sub && <p className={s.authSub}>{sub}</p>}
      </div>
      {children}
    </div>
  );
}

export function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {text}
    </p>
  );
}
