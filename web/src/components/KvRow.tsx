/** One label/value row of a `dl` of terms (a plan's price, a project's window): the value in figures. */
import type { ReactNode } from "react";
import acct from "./account.module.css";

export function KvRow({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className={acct.kvRow}>
      <dt>{label}</dt>
      <dd className="num" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** One cell of a record's grid of figures (a contract's, an order's): the label over the value, in figures. */
export function Fact({ label, children, tone, testId }: { label: string; children: ReactNode; tone?: string; testId?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={tone ? `num ${tone}` : "num"} data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
