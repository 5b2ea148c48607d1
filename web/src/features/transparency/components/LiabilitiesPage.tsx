/**
 * Proof of liabilities (/transparency/liabilities, issue #20 §2, issue #26). Anyone sees the latest
 * published snapshot (its time, root hash, user count and what the exchange owes its users per
 * currency), when the next one is taken and how to check it, in plain words. A logged-in user's
 * proof (their nonce and two leaves, each bound to their account, with the siblings up to the root)
 * is fetched and verified here in the browser for the account they are logged in with, against the
 * published root and totals: "your balances are included" with their amounts, the account the
 * leaves are bound to and the nonce, or, clearly, that the proof does not verify and which check
 * failed. The proof downloads as proof.json for `npm run verify-liabilities -- proof.json --account …`.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatDayStart, formatExact } from "../../../lib/format.ts";
import { useSession } from "../../../lib/session.ts";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { nextSnapshotAt } from "../../../../../schemas/liabilities.ts";
import { proofBalances, proofFile, useLiabilities, useProof, useVerification, type Liabilities, type LiabilityProof, type ProofResult } from "../api.ts";
import { PublishedSnapshot } from "./PublishedSnapshot.tsx";
import acct from "../../../components/account.module.css";
import s from "./transparency.module.css";

const checkLabel: Record<ProofResult["checks"][number]["check"], () => string> = {
  format: m.liab_check_format,
  binding: m.liab_check_binding,
  leaf: m.liab_check_leaf,
  path: m.liab_check_path,
  root_hash: m.liab_check_root_hash,
  root_sums: m.liab_check_root_sums,
  published: m.liab_check_published,
};

function Totals({ p }: { p: Liabilities }) {
  return (
    <section className="card" data-testid="liab-published">
      <h2 className="section-title">{m.liab_published_title()}</h2>
      <PublishedSnapshot snapshot={p} testId="liab" />
    </section>
  );
}

function download(proof: LiabilityProof) {
  const url = URL.createObjectURL(proofFile(proof));
  const a = document.createElement("a");
  a.href = url;
  a.download = "proof.json";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function Verdict({ proof, result }: { proof: LiabilityProof; result: ProofResult | undefined }) {
  if (!result) {
    return (
      <div className={`${acct.notice} ${acct.noticeInfo} ${s.verdict}`} data-testid="liab-verifying">
        <Spinner size={18} />
        <span>{m.liab_verifying()}</span>
      </div>
    );
  }
  if (!result.ok) {
    const failed = result.checks.find((c) => !c.ok);
    return (
      <div className={`${acct.notice} ${acct.noticeBad} ${s.verdict}`} role="alert" data-testid="liab-failed">
        <Icon name="alert" size={20} />
        <div>
          <div className={s.verdictTitle}>{m.liab_failed()}</div>
          {failed && <div className={s.verdictSub}>{m.liab_failed_sub({ check: checkLabel[failed.check]() })}</div>}
          {failed && <div className={s.detail}>{failed.detail}</div>}
        </div>
      </div>
    );
  }
  return (
    <div className={`${acct.notice} ${acct.noticeOk}`} data-testid="liab-verified">
      <div className={s.verdict}>
        <Icon name="check" size={20} />
        <div>
          <div className={s.verdictTitle}>{m.liab_verified()}</div>
          <div className={s.verdictSub}>{m.liab_verified_bound({ steps: String(proof.leaves.reduce((n, l) => n + l.path.length, 0)), id: String(proof.snapshot_id) })}</div>
        </div>
      </div>
    </div>
  );
}

function Amounts({ proof }: { proof: LiabilityProof }) {
  const total = proofBalances(proof) ?? proof.currencies.map(() => "0");
  const rows = proof.currencies.map((c, i) => ({ name: c.name, amount: total[i]! }));
  const nonZero = rows.filter((r) => r.amount !== "0");
  return (
    <table className={`${acct.feeTable} ${s.amounts}`} data-testid="liab-mine">
      <thead>
        <tr>
          <th>{m.liab_your_amounts()}</th>
          <th className="right">{m.liab_taken()}: {formatDateTime(proof.taken_at)}</th>
        </tr>
      </thead>
      <tbody>
        {(nonZero.length > 0 ? nonZero : rows).map((r) => (
          <tr key={r.name}>
            <td>{r.name}</td>
            <td className="right num">{formatExact(r.amount)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Whose leaves these are: the account they are bound to, the nonce, and how the binding is made. */
function Binding({ proof, account }: { proof: LiabilityProof; account: string }) {
  return (
    <div className={s.gap} data-testid="liab-binding">
      <h3 className={s.subTitle}>{m.liab_binding_title()}</h3>
      <dl className={acct.kv}>
        <div className={acct.kvRow}>
          <dt>{m.liab_bound_to()}</dt>
          <dd className={acct.monoBreak} data-testid="liab-bound-to">{account.trim().toLowerCase()}</dd>
        </div>
      </dl>
      <div className={`muted ${s.label}`}>{m.liab_nonce()}</div>
      <code className={s.command} data-testid="liab-nonce">{proof.nonce}</code>
      <p className={`form-note ${s.gap}`}>{m.liab_binding_how()}</p>
    </div>
  );
}

function YourProof({ published }: { published: Liabilities }) {
  const proof = useProof(true);
  const account = useSession().accountNum;
  const verdict = useVerification(proof.data, published, account);
  const p = proof.data;
  return (
    <section className="card" data-testid="liab-proof">
      <h2 className="section-title">{m.liab_yours_title()}</h2>
      {proof.error && !p ? (
        proof.error.code === "liabilities_not_included" ? (
          <p className="form-note" data-testid="liab-not-included">{proof.error.message}</p>
        ) : (
          <ErrorState message={proof.error.message} onRetry={proof.reload} />
        )
      ) : !p ? (
        <SkeletonBlock height={120} />
      ) : (
        <>
          <Verdict proof={p} result={verdict.data} />
          <Amounts proof={p} />
          <Binding proof={p} account={account} />
          <button type="button" className={`btn btn-outline btn-block ${s.gap}`} onClick={() => download(p)} data-testid="liab-download">
            {m.liab_download()}
          </button>
          <p className={`form-note ${s.gap}`}>{m.liab_offline_account()}</p>
          <code className={s.command} data-testid="liab-command">
            npm run verify-liabilities -- proof.json --account {account.trim().toLowerCase() || "you@example.com"} --api {location.origin}
          </code>
        </>
      )}
    </section>
  );
}

/** When the next snapshot is taken and how to check it, in plain words. */
function NextAndHow({ nextAt }: { nextAt: number }) {
  const [before, after = ""] = m.liab_next({ time: "\u0000" }).split("\u0000");
  return (
    <section className="card" data-testid="liab-next-card">
      <h2 className="section-title">{m.liab_next_title()}</h2>
      <p className={s.note} data-testid="liab-next">
        {/* The sentence around the time, and the time kept on one line. */}
        {before}
        <span className={s.nowrap}>{formatDayStart(nextAt)}</span>
        {after}
      </p>
      <h3 className={s.subTitle}>{m.liab_how_title()}</h3>
      <ol className={s.steps} data-testid="liab-how">
        <li>{m.liab_how_1()}</li>
        <li>{m.liab_how_2()}</li>
        <li>{m.liab_how_3()}</li>
        <li>{m.liab_how_4()}</li>
      </ol>
    </section>
  );
}

export default function LiabilitiesPage() {
  const published = useLiabilities();
  const loggedIn = useSession().token !== "";
  const p = published.data;
  const none = published.error?.code === "liabilities_none";
  return (
    <div className={acct.acctPage} data-testid="liabilities-page">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.title_liabilities()}</h2>
        <p className={s.heroSub}>{m.liab_intro()}</p>
      </section>
      {none ? (
        <EmptyState text={m.liab_none()} />
      ) : published.error && !p ? (
        <ErrorState message={published.error.message} onRetry={published.reload} />
      ) : !p ? (
        <SkeletonBlock height={220} />
      ) : (
        <>
          {loggedIn ? (
            <YourProof published={p} />
          ) : (
            <Link to="/login?redirect=%2Ftransparency%2Fliabilities" className="btn btn-primary btn-block" data-testid="liab-login">
              {m.liab_login()}
            </Link>
          )}
          <Totals p={p} />
        </>
      )}
      <NextAndHow nextAt={p?.next_at ?? nextSnapshotAt(Date.now())} />
      <Link to="/transparency" className="btn btn-outline btn-block" data-testid="liab-all-figures">
        {m.tp_all_figures()}
      </Link>
    </div>
  );
}
