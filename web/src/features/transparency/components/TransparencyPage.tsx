/**
 * The public transparency page (/transparency, issue #20 §3), readable without a login: the house's
 * reserves for open seconds contracts and leveraged positions, the cover's premiums and claims,
 * fee revenue, the latest liabilities root and totals (with the way to one's own proof), and the
 * mining payouts recorded. Each figure says in one line what it means and when it was computed;
 * the server computes them from its books and caches them a minute (GET /api/transparency).
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { ErrorState, SkeletonBlock } from "../../../components/States.tsx";
import { useSummary, type MiningPayoutTotal, type Transparency } from "../api.ts";
import { PublishedSnapshot } from "./PublishedSnapshot.tsx";
import acct from "../../../components/account.module.css";
import s from "./transparency.module.css";

/** The products that charge fees, by their declared id (schemas/products.ts). */
const productLabel: Record<string, () => string> = {
  spot: m.title_exchange,
  seconds: m.title_trade,
  lever: m.title_lever,
  conversion: m.title_excharge,
};

function Note({ text }: { text: string }) {
  return <p className={`form-note ${s.note}`}>{text}</p>;
}

function Reserves({ title, note, rows, testId }: { title: string; note: string; rows: Transparency["reserves"]["seconds"]; testId: string }) {
  return (
    <div className={s.block} data-testid={testId}>
      <h3 className={s.subTitle}>{title}</h3>
      <Note text={note} />
      {rows.length === 0 ? (
        <p className={s.none}>{m.tp_none_open()}</p>
      ) : (
        <table className={acct.feeTable}>
          <thead>
            <tr>
              <th>{m.liab_currency()}</th>
              <th className="right">{m.tp_col_open()}</th>
              <th className="right">{m.tp_col_reserved()}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.currency}>
                <td>{r.currency}</td>
                <td className="right num">{r.open}</td>
                <td className="right num">{formatExact(r.reserved)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Cover({ t, at }: { t: Transparency; at: string }) {
  return (
    <section className="card" data-testid="tp-cover">
      <h2 className="section-title">{m.tp_cover_title()}</h2>
      <Note text={m.tp_cover_note({ time: at })} />
      {t.cover.length === 0 ? (
        <p className={s.none}>{m.tp_cover_none()}</p>
      ) : (
        t.cover.map((c) => (
          <dl className={`${acct.kv} ${s.group}`} key={c.currency}>
            <div className={`${acct.kvRow} ${acct.strong}`}>
              <dt>{c.currency}</dt>
              <dd />
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_cover_premiums()}</dt>
              <dd className="num">{formatExact(c.premiums)}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_cover_claims()}</dt>
              <dd className="num">
                {formatExact(c.claims_paid)} · {m.tp_cover_claims_count({ count: String(c.claims) })}
              </dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_cover_sold()}</dt>
              <dd className="num">{c.sold}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_cover_reserved()}</dt>
              <dd className="num">{formatExact(c.reserved)}</dd>
            </div>
          </dl>
        ))
      )}
    </section>
  );
}

function Fees({ t, at }: { t: Transparency; at: string }) {
  return (
    <section className="card" data-testid="tp-fees">
      <h2 className="section-title">{m.tp_fees_title()}</h2>
      <Note text={m.tp_fees_note({ time: at })} />
      {t.fees.length === 0 ? (
        <p className={s.none}>{m.tp_fees_none()}</p>
      ) : (
        t.fees.map((f) => (
          <dl className={`${acct.kv} ${s.group}`} key={f.currency} data-testid={`tp-fee-${f.currency}`}>
            <div className={`${acct.kvRow} ${acct.strong}`}>
              <dt>{m.tp_fees_total({ currency: f.currency })}</dt>
              <dd className="num">{formatExact(f.total)}</dd>
            </div>
            {f.products.map((p) => (
              <div className={acct.kvRow} key={p.product}>
                <dt>{productLabel[p.product]?.() ?? p.product}</dt>
                <dd className="num">{formatExact(p.amount)}</dd>
              </div>
            ))}
          </dl>
        ))
      )}
    </section>
  );
}

function LiabilitiesSummary({ t }: { t: Transparency }) {
  const l = t.liabilities;
  return (
    <section className="card" data-testid="tp-liabilities">
      <h2 className="section-title">{m.title_liabilities()}</h2>
      {!l ? (
        <p className={s.none}>{m.tp_liab_none()}</p>
      ) : (
        <>
          <Note text={m.tp_liab_note({ time: formatDateTime(l.taken_at) })} />
          <PublishedSnapshot snapshot={l} testId="tp" grouped />
        </>
      )}
      <Link to="/transparency/liabilities" className={`btn btn-outline btn-block ${s.gap}`} data-testid="tp-liabilities-link">
        {m.tp_liab_check()}
      </Link>
    </section>
  );
}

function Mining({ rows, at }: { rows: MiningPayoutTotal[]; at: string }) {
  return (
    <section className="card" data-testid="tp-mining">
      <h2 className="section-title">{m.tp_mining_title()}</h2>
      <Note text={m.tp_mining_note({ time: at })} />
      {rows.length === 0 ? (
        <p className={s.none} data-testid="tp-mining-none">
          {m.tp_mining_none()}
        </p>
      ) : (
        rows.map((r) => (
          <dl className={`${acct.kv} ${s.group}`} key={r.currency}>
            <div className={`${acct.kvRow} ${acct.strong}`}>
              <dt>{r.currency}</dt>
              <dd />
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_mining_paid()}</dt>
              <dd className="num">{formatExact(r.paid)}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_mining_fees()}</dt>
              <dd className="num">{formatExact(r.fees)}</dd>
            </div>
            <div className={acct.kvRow}>
              <dt>{m.tp_mining_hours()}</dt>
              <dd className="num">{r.hours}</dd>
            </div>
          </dl>
        ))
      )}
    </section>
  );
}

export default function TransparencyPage() {
  const summary = useSummary();
  const t = summary.data;
  const at = t ? formatDateTime(t.computed_at) : "";
  return (
    <div className={acct.acctPage} data-testid="transparency-page">
      <section className={acct.heroCard}>
        <h2 className={s.heroTitle}>{m.title_transparency()}</h2>
        <p className={s.heroSub}>{m.tp_intro()}</p>
        {t && (
          <p className={s.heroSub} data-testid="tp-computed">
            {m.tp_computed({ time: at, seconds: String(t.cache_seconds) })}
          </p>
        )}
      </section>
      {summary.error && !t ? (
        <ErrorState message={summary.error.message} onRetry={summary.reload} />
      ) : !t ? (
        <>
          <SkeletonBlock height={180} />
          <SkeletonBlock height={140} />
        </>
      ) : (
        <>
          <section className="card" data-testid="tp-reserves">
            <h2 className="section-title">{m.tp_reserves_title()}</h2>
            <Reserves title={m.tp_reserves_seconds()} note={m.tp_reserves_seconds_note({ time: at })} rows={t.reserves.seconds} testId="tp-reserves-seconds" />
            <Reserves title={m.tp_reserves_lever()} note={m.tp_reserves_lever_note({ time: at })} rows={t.reserves.lever} testId="tp-reserves-lever" />
          </section>
          <Cover t={t} at={at} />
          <Fees t={t} at={at} />
          <LiabilitiesSummary t={t} />
          <Mining rows={t.mining ?? []} at={at} />
        </>
      )}
    </div>
  );
}
