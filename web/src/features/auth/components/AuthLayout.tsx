/** The brand block and card shared by login, register and password recovery. */
import type { ReactNode } from "react";
import { LogoMark } from "../../../components/Icon.tsx";
import "./auth.css";

export function AuthLayout({ heading, sub, children }: { heading: string; sub?: string; children: ReactNode }) {
  return (
    <div className="auth">
      <div className="auth-hero">
        <LogoMark size={44} />
        <h2 className="auth-heading">{heading}</h2>
        {sub && <p className="auth-sub">{sub}</p>}
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
