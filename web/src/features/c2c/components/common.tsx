/**
 * Pieces every C2C screen shares: the product gate (PRODUCT_C2C off: nothing of C2C is offered),
 * the order state and receiving-method labels, an order card for the lists, a seller's receiving
 * method as the buyer needs it to pay, and the merchant's avatar.
 */
import type { ReactNode } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { copyText } from "../../../lib/clipboard.ts";
import { formatDateTime, formatExact, groupThousands } from "../../../lib/format.ts";
import { useProducts } from "../../../lib/products.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { PageSpinner } from "../../../components/States.tsx";
import { useC2cLive, type C2cOrder, type IsSure, type PayKind, type PaySnapshot } from "../api.ts";
import { orderLink } from "../math.ts";
import { hasUnread, useReadMarks } from "../readMarks.ts";
import s from "./c2c.module.css";

/**
 * Shows C2C screens only where the deployment has C2C switched on (GET /api/cfg/kefu products),
 * and keeps them current from the private channel's C2C events.
 */
export function C2cGate({ children }: { children: ReactNode }) {
  const products = useProducts();
  useC2cLive();
  if (products === null) return <PageSpinner />;
  if (!products.c2c) {
    return (
      <div className="state state-empty" data-testid="c2c-off">
        <Icon name="shield" size={40} />
        <p>{m.c2c_off()}</p>
        <Link to="/" className="btn btn-outline btn-small">{m.back_home()}</Link>
      </div>
    );
  }
  return <>{children}</>;
}

/** CNY with thousands separators, e.g. "¥7,200.00". */
export function cny(value: string): string {
  return `¥${groupThousands(value)}`;
}

export function stateText(isSure: IsSure): string {
  switch (isSure) {
    case 0:
      return m.c2c_state_unpaid();
    case 3:
      return m.c2c_state_paid();
    case 1:
      return m.c2c_state_finished();
    case 2:
      return m.c2c_state_cancelled();
  }
}

export function stateTone(isSure: IsSure): "pending" | "ok" | "none" {
  return isSure === 1 ? "ok" : isSure === 2 ? "none" : "pending";
}

export function StateBadge({ isSure, appealed = false }: { isSure: IsSure; appealed?: boolean }) {
  return (
    <span className={`badge badge-${appealed && isSure === 3 ? "bad" : stateTone(isSure)}`} data-testid="order-state" data-state={isSure}>
      {appealed && isSure === 3 ? m.c2c_state_appealed() : stateText(isSure)}
    </span>
  );
}

export function payKindText(kind: PayKind): string {
  switch (kind) {
    case "bank":
      return m.c2c_pay_bank();
    case "alipay":
      return m.c2c_pay_alipay();
    case "wechat":
      return m.c2c_pay_wechat();
    case "other":
      return m.c2c_pay_other();
  }
}

/** The colour of a receiving method's tag. */
export function kindClass(kind: PayKind): string {
  return { bank: s.kindBank, alipay: s.kindAlipay, wechat: s.kindWechat, other: s.kindOther }[kind] ?? "";
}

export function PayKinds({ kinds }: { kinds: readonly PayKind[] }) {
  return (
    <span className={s.payKinds}>
      {kinds.map((k) => (
        <span key={k} className={`${s.payKind} ${kindClass(k)}`}>{payKindText(k)}</span>
      ))}
    </span>
  );
}

/** The order from the viewer's side: "Buy USDT" or "Sell USDT". */
export function sideText(order: Pick<C2cOrder, "role" | "currency_name">): string {
  return order.role === "buyer" ? m.c2c_buy_coin({ coin: order.currency_name }) : m.c2c_sell_coin({ coin: order.currency_name });
}

export function MerchantAvatar({ name, color, size = 32 }: { name: string; color: string; size?: number }) {
  const bg = /^#[0-9a-f]{6}$/i.test(color) ? color : "#5b8def";
  return (
    <span className={s.avatar} style={{ width: size, height: size, background: bg, fontSize: size * 0.45 }} aria-hidden="true">
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/** One order in a list: side, state, amounts and a dot when the chat has news. */
export function OrderCard({ order }: { order: C2cOrder }) {
  const marks = useReadMarks();
  const unread = hasUnread(marks, order.id, order.last_message_id);
  return (
    <li>
      <Link to={orderLink(order)} className={s.orderCard} data-testid="c2c-order" data-id={order.id} data-state={order.is_sure}>
        <div className={s.orderCardHead}>
          <span className={`${s.orderSide} ${order.role === "buyer" ? "up" : "down"}`}>{sideText(order)}</span>
          {unread && <span className={s.dot} role="img" aria-label={m.c2c_new_messages()} data-testid="order-unread" />}
          <span className={s.grow} />
          <StateBadge isSure={order.is_sure} appealed={order.appeal !== null && order.appeal.status === 0} />
        </div>
        <dl className={s.orderGrid}>
          <div>
            <dt>{m.c2c_amount()}</dt>
            <dd className="num">{formatExact(order.number)} {order.currency_name}</dd>
          </div>
          <div>
            <dt>{m.c2c_price()}</dt>
            <dd className="num">{cny(order.price)}</dd>
          </div>
          <div className="right">
            <dt>{m.c2c_total()}</dt>
            <dd className="num" data-testid="order-total">{cny(order.deal_money)}</dd>
          </div>
        </dl>
        <div className={`${s.orderFoot} muted`}>
          <span data-testid="order-counterparty">{order.is_merchant && order.counterparty_real_name !== null ? order.counterparty_real_name : order.counterparty_name}</span>
          <span className="num">{formatDateTime(order.create_time)}</span>
        </div>
      </Link>
    </li>
  );
}

function CopyValue({ value, label }: { value: string; label: string }) {
  return (
    <span className={s.copyValue}>
      <span className="num">{value}</span>
      <button
        type="button"
        className="icon-btn"
        aria-label={`${m.wallet_copy()} ${label}`}
        onClick={async () => (await copyText(value)) ? toast.success(m.c2c_copied()) : toast.error(m.wallet_copy_failed())}
      >
        <Icon name="copy" size={16} />
      </button>
    </span>
  );
}

/** Where the buyer sends the money: the seller's receiving method as recorded with the order. */
export function PayMethodCard({ method, orderId }: { method: PaySnapshot; orderId: number }) {
  const title = method.kind === "other" && method.label ? `${payKindText("other")} · ${method.label}` : payKindText(method.kind);
  return (
    <section className={s.payMethod} data-testid="pay-method" data-kind={method.kind} aria-label={title}>
      <div className={s.payMethodHead}>
        <span className={`${s.payKind} ${kindClass(method.kind)}`}>{title}</span>
      </div>
      <dl className={s.kv}>
        <div>
          <dt>{m.c2c_holder()}</dt>
          <dd><CopyValue value={method.holder_name} label={m.c2c_holder()} /></dd>
        </div>
        <div>
          <dt>{method.kind === "bank" ? m.c2c_card_number() : m.c2c_account()}</dt>
          <dd data-testid="pay-method-account"><CopyValue value={method.account} label={m.c2c_account()} /></dd>
        </div>
        {method.kind === "bank" && method.bank_name && (
          <div>
            <dt>{m.c2c_bank_name()}</dt>
            <dd>{method.bank_name}{method.bank_branch ? ` · ${method.bank_branch}` : ""}</dd>
          </div>
        )}
      </dl>
      {method.qr_code && <AuthImage src={method.qr_code} alt={m.c2c_pay_code_of({ kind: title, order: String(orderId) })} className={s.qr} />}
    </section>
  );
}

/** Label/value rows. */
export function Row({ label, children, testId, strong = false }: { label: string; children: ReactNode; testId?: string; strong?: boolean }) {
  return (
    <div className={strong ? s.strong : undefined}>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/** The C2C area's own links: market, my orders, merchant centre, receiving methods. */
export function C2cNav({ here }: { here: "market" | "orders" | "merchant" | "payment" }) {
  const links: { key: typeof here; to: string; label: string; icon: "c2c" | "records" | "user" | "bank" }[] = [
    { key: "market", to: "/legal/index", label: m.c2c_nav_market(), icon: "c2c" },
    { key: "orders", to: "/legal/order", label: m.c2c_nav_orders(), icon: "records" },
    { key: "merchant", to: "/legal/merchant", label: m.c2c_nav_merchant(), icon: "user" },
    { key: "payment", to: "/legal/payment", label: m.c2c_nav_payment(), icon: "bank" },
  ];
  return (
    <nav className={s.areaNav} aria-label={m.title_legal()}>
      {links.map((l) => (
        <Link key={l.key} to={l.to} replace={here !== "market"} className={l.key === here ? "active" : ""} aria-current={l.key === here ? "page" : undefined} data-testid={`c2c-nav-${l.key}`}>
          <Icon name={l.icon} size={18} />
          <span>{l.label}</span>
        </Link>
      ))}
    </nav>
  );
}
