/** The published evidence of one mining hour (the pool's record anyone can check), as a term row. */
import { m } from "../../../i18n/index.ts";
import { KvRow } from "../../../components/KvRow.tsx";
import s from "./mining.module.css";

export function EvidenceRow({ evidence }: { evidence: string }) {
  return (
    <KvRow label={m.mining_evidence()}>
      <span className={s.evidence}>{evidence}</span>
    </KvRow>
  );
}
