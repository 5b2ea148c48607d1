/**
 * My rebates (/invite/rebates): each line is what one invitee's fees of one product on one Beijing
 * day paid one: the day, the invite level, the masked invitee, the product, the fee (USDT at the
 * day's close), the rate (with the agent level's extra share on level 1), the amount and the
 * account it was paid into. A line's fee and amount are shown exactly as paid (a 20 % share of
 * a 0.01 USDT fee reads 0.002, not 0.00), not cut to the display rule of a balance.
 */
import { m } from "../../../i18n/index.ts";
import { formatMoneyMoved, isZeroDecimal } from "../../../lib/format.ts";
import { formatRate } from "../../../lib/rate.ts";
import { PagedList } from "../../../components/ListFooter.tsx";
import { useRebates } from "../api.ts";
import { productLabel } from "../labels.ts";
import acct from "../../../components/account.module.css";
import s from "./invite.module.css";

export default function RebatesPage() {
  const list = useRebates();
  return (
    <div className={acct.acctPage} data-testid="invite-rebates">
      <p className="form-note">{m.invite_rebates_note()}</p>
      <PagedList list={list} emptyText={m.invite_rebates_empty()}>
        {(r) => (
          <li key={`${r.day}-${r.level}-${r.invitee}-${r.product}`} className={acct.recordCard} data-testid="rebate-row">
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>
                <span className="num">{r.day}</span>
                <span className="badge badge-none">{m.invite_level({ level: String(r.level) })}</span>
              </span>
              <span className={`${s.amountUp} num`} data-testid="rebate-amount">
                +{formatMoneyMoved(r.amount, r.currency)} {r.currency}
              </span>
            </div>
            <dl className={acct.kv}>
              <div className={acct.kvRow}>
                <dt>{m.invite_invitee()}</dt>
                <dd className="num">{r.invitee}</dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.invite_product()}</dt>
                <dd>{productLabel(r.product)}</dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.invite_fee()}</dt>
                <dd className="num">{formatMoneyMoved(r.fee_usdt, "USDT")} USDT</dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.invite_rate()}</dt>
                <dd className="num">
                  {formatRate(r.rate)}
                  {!isZeroDecimal(r.agent_rate) && <span className="muted"> {m.invite_rate_with_agent({ rate: formatRate(r.agent_rate) })}</span>}
                </dd>
              </div>
              <div className={acct.kvRow}>
                <dt>{m.invite_paid_to()}</dt>
                <dd>{r.paid_to === "lever" ? m.assets_acct_lever() : m.assets_acct_change()}</dd>
              </div>
            </dl>
          </li>
        )}
      </PagedList>
    </div>
  );
}
