/**
 * Asset centre (spec §2 Assets): the total in USDT over every account, a tab per account of a
 * product that is on (schemas/products.ts: spot "change", seconds "micro", fiat "legal", leverage "lever"), and per coin the available, frozen
 * and USDT-valued amounts (2 decimals) of the coins flagged to show. Values use real last
 * prices only: a coin that never traded is valued at 0.00 and says so. Tapping a coin shows
 * its exact amounts (the list truncates to the spec's display precision, never rounds up).
 */
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { MASK, useHideTotals } from "../../../lib/hideTotals.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonBlock, SkeletonList } from "../../../components/States.tsx";
import { accountLabel, accountTabs, useProducts } from "../../../lib/products.ts";
import { amountsOf, useWallets, walletOf, type AccountName, type WalletRow } from "../api.ts";
import acct from "../../../components/account.module.css";
import { formatExact, formatMoney, isZeroDecimal } from "../../../lib/format.ts";
import { holdsOf, holdsRoute, purposeLabel, useHolds } from "../../../lib/holds.ts";
import { TotalsHead } from "../../../components/TotalsHead.tsx";

export default function AssetsPage() {
  const hidden = useHideTotals();
  const [chosen, setTab] = useState<AccountName>("change");
  // Accounts of products switched off in this deployment are not shown (schemas/products.ts).
  const accounts = accountTabs(useProducts());
  const tab = accounts.includes(chosen) ? chosen : "change";
  const [open, setOpen] = useState<number | null>(null);
  const { data, error, loading, reload } = useWallets();

  const mask = (s: string) => (hidden ? MASK : s);
  const wallet = data ? walletOf(data, tab) : null;
  // Every row the server lists: the shown currencies, and one not shown (a launch's token before its listing) where the user holds some.
  const rows = wallet ? wallet.balance : [];

  return (
    <div className={acct.acctPage} data-testid="assets-page">
      <section className={acct.heroCard}>
        <TotalsHead />
        {loading && !data ? (
          <div className={`skeleton ${acct.heroSkeleton}`} />
        ) : (
          <div className={`${acct.heroValue} num`} data-testid="asset-total" data-value={data?.total_usdt ?? ""}>
            {data ? mask(formatMoney(data.total_usdt, "USDT")) : "--"}
            <span className={acct.heroUnit}>USDT</span>
          </div>
        )}
        <nav className={acct.heroActions} aria-label={m.assets_actions()}>
          <Link to="/recharge" className={acct.heroAction} data-testid="asset-deposit">
            <Icon name="deposit" size={20} />
            <span>{m.assets_deposit()}</span>
          </Link>
          <Link to="/withdrawal" className={acct.heroAction} data-testid="asset-withdraw">
            <Icon name="withdraw" size={20} />
            <span>{m.assets_withdraw()}</span>
          </Link>
          <Link to="/transfer" className={acct.heroAction} data-testid="asset-transfer">
            <Icon name="transfer" size={20} />
            <span>{m.assets_transfer()}</span>
          </Link>
          <Link to="/excharge" className={acct.heroAction} data-testid="asset-convert">
            <Icon name="exchange" size={20} />
            <span>{m.assets_convert()}</span>
          </Link>
        </nav>
      </section>

      <div className={acct.tabs} role="tablist" aria-label={m.assets_accounts()}>
        {accounts.map((a) => (
          <button key={a} type="button" role="tab" aria-selected={tab === a} className={tab === a ? "active" : ""} onClick={() => setTab(a)} data-testid={`asset-tab-${a}`}>
            {accountLabel(a)}
          </button>
        ))}
      </div>

      {error && !data ? (
        <ErrorState message={error.message} onRetry={reload} />
      ) : loading && !data ? (
        <>
          <SkeletonBlock height={44} />
          <SkeletonList rows={5} avatar />
        </>
      ) : wallet ? (
        <>
          <div className={acct.accountSum}>
            <span className="muted">{m.assets_account_total({ account: accountLabel(tab) })}</span>
            <span className="num" data-testid="account-total" data-value={wallet.usdt_totle}>
              {mask(formatMoney(wallet.usdt_totle, "USDT"))} USDT
            </span>
          </div>
          {rows.length === 0 ? (
            <EmptyState text={m.assets_no_coins()} />
          ) : (
            <ul className={acct.coinList} data-testid="coin-list">
              {rows.map((row) => (
                <CoinRow key={row.currency} row={row} account={tab} hidden={hidden} open={open === row.currency} onToggle={() => setOpen(open === row.currency ? null : row.currency)} />
              ))}
            </ul>
          )}
          <p className={`form-note ${acct.center}`}>{m.assets_price_note()}</p>
          <div className={acct.linkRow}>
            <Link to="/statement" className="btn btn-outline btn-small" data-testid="assets-statement">
              <Icon name="records" size={16} />
              {m.assets_statement()}
            </Link>
            <Link to="/recharge/log" className="btn btn-outline btn-small">
              <Icon name="records" size={16} />
              {m.assets_records()}
            </Link>
            <Link to="/personal" className="btn btn-outline btn-small" data-testid="assets-personal">
              <Icon name="user" size={16} />
              {m.assets_personal()}
            </Link>
          </div>
        </>
      ) : null}
    </div>
  );
}

function CoinRow({ row, account, hidden, open, onToggle }: { row: WalletRow; account: AccountName; hidden: boolean; open: boolean; onToggle: () => void }) {
  const { available, frozen } = amountsOf(row, account);
  const mask = (s: string) => (hidden ? MASK : s);
  return (
    <li className={`${acct.coinRow} ${open ? acct.open : ""}`} data-testid={`asset-row-${row.currency_name}`} data-available={available} data-frozen={frozen} data-value={row.usdt_totle}>
      <button type="button" className={acct.coinRowMain} data-testid="coin-row-main" onClick={onToggle} aria-expanded={open}>
        <div className={acct.coinRowHead}>
          <CoinAvatar symbol={row.currency_name} size={28} />
          <span className={acct.coinName}>{row.currency_name}</span>
          <Icon name="chevronDown" size={16} className={acct.coinCaret} />
        </div>
        <div className={acct.coinCols}>
          <div>
            <span className={acct.coinColLabel}>{m.assets_available()}</span>
            <span className="num" data-testid="coin-available">{mask(formatMoney(available, row.currency_name))}</span>
          </div>
          <div>
            <span className={acct.coinColLabel}>{m.assets_frozen()}</span>
            <span className="num" data-testid="coin-frozen">{mask(formatMoney(frozen, row.currency_name))}</span>
          </div>
          <div className="right">
            <span className={acct.coinColLabel}>{m.assets_value_usdt()}</span>
            <span className="num" data-testid="coin-value">{mask(formatMoney(row.usdt_totle, "USDT"))}</span>
          </div>
        </div>
      </button>
      {open && (
        <dl className={`${acct.kv} ${acct.coinDetail}`} data-testid="coin-detail">
          <div className={acct.kvRow}>
            <dt>{m.assets_exact_available()}</dt>
            <dd className="num">{mask(formatExact(available))}</dd>
          </div>
          <div className={acct.kvRow}>
            <dt>{m.assets_exact_frozen()}</dt>
            <dd className="num">{mask(formatExact(frozen))}</dd>
          </div>
          <div className={acct.kvRow}>
            <dt>{m.assets_last_price()}</dt>
            <dd className="num">{row.usdt_price === null ? m.assets_no_price() : `${formatExact(row.usdt_price)} USDT`}</dd>
          </div>
          {!isZeroDecimal(frozen) && <HeldFor currencyId={row.currency} coin={row.currency_name} account={account} hidden={hidden} />}
          <div className={acct.kvRow}>
            <dt />
            <dd>
              <Link to={`/statement?currency_id=${row.currency}&account=${account}`} className="text-btn" data-testid="coin-statement">
                {m.assets_coin_statement()} ›
              </Link>
            </dd>
          </div>
        </dl>
      )}
    </li>
  );
}

/** Why a coin's frozen part is frozen: each purpose with its amount (GET /api/wallet/holds), and the link to the list of records. */
function HeldFor({ currencyId, coin, account, hidden }: { currencyId: number; coin: string; account: AccountName; hidden: boolean }) {
  const { data } = useHolds();
  const group = holdsOf(data?.groups, currencyId, account);
  // One line per purpose: several open orders of a coin read as one "Spot order" amount here.
  const byPurpose = new Map<string, { label: string; units: string[] }>();
  for (const h of group?.holds ?? []) {
    const entry = byPurpose.get(h.purpose) ?? { label: purposeLabel(h.purpose), units: [] };
    entry.units.push(h.amount);
    byPurpose.set(h.purpose, entry);
  }
  return (
    <div className={acct.kvRow} data-testid="held-for">
      <dt>{m.assets_held_for()}</dt>
      <dd>
        {[...byPurpose].map(([purpose, e]) => (
          <span key={purpose} className="num" style={{ display: "block" }} data-testid="held-reason" data-purpose={purpose}>
            {e.label} {hidden ? MASK : formatMoney(sumDecimals(e.units), coin)}
          </span>
        ))}
        <Link to={holdsRoute(currencyId, account)} className="text-btn" data-testid="see-holds">
          {m.assets_see_holds()} ›
        </Link>
      </dd>
    </div>
  );
}

/** Exact sum of decimal strings (same scale, as the API sends one coin's amounts), never through a float. */
function sumDecimals(values: string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.split(".")[1] ?? "").length));
  let total = 0n;
  for (const v of values) {
    const [i = "0", f = ""] = v.split(".");
    total += BigInt(i + f.padEnd(scale, "0"));
  }
  const t = total.toString().padStart(scale + 1, "0");
  return scale === 0 ? t : `${t.slice(0, -scale)}.${t.slice(-scale)}`;
}
