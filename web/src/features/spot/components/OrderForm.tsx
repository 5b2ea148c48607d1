/**
 * The spot order form (spec §2 Spot exchange, §4 spot dialog, §5 spot order rules): buy or sell,
 * limit or market. A limit price follows the best bid when buying and the best ask when selling
 * until the user edits it (or taps a book level); a market order has a read-only price and shows
 * the best opposite price. The slider sets the quantity from the available balance; every amount
 * is computed on decimal strings. Each submit carries a client order id that is kept while the
 * same order is retried, so a double tap or a retry after a timeout never places it twice.
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { errText } from "../../../i18n/errors.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import { loginPath, navigateTo } from "../../../lib/nav.ts";
import { useSession } from "../../../lib/session.ts";
import { Spinner } from "../../../components/States.tsx";
import { LEGAL_ID, usePlaceOrder, type OrderMode, type PairRow, type PlacedOrder, type Side, type SpotBalance } from "../api.ts";
import { newClientOrderId } from "../display.ts";
import {
  SLIDER_STEPS,
  checkOrder,
  checkTotal,
  farFromMarket,
  isPositive,
  marketLimitPrice,
  orderTotal,
  qtyDecimalsFor,
  sanitizeDecimalInput,
  sliderQuantity,
  sliderTotal,
  toUnits,
  TOTAL_DECIMALS,
} from "../orderMath.ts";
import { formatMoney, formatPrice, isZeroDecimal } from "../../../lib/format.ts";
import s from "./spot.module.css";

export interface PricePick {
  price: string;
  /** Changes on every tap, so tapping the same level twice still applies. */
  nonce: number;
}

export interface OrderFormProps {
  pair: PairRow;
  balance: SpotBalance | null;
  bestBid: string | null;
  bestAsk: string | null;
  initialSide?: Side;
  /** A price tapped in the order book. */
  pick?: PricePick | null;
  /**
   * Called after every submit that reached the server or failed: with the accepted order, or null
   * when it was refused. Either way balances and open orders should reload.
   */
  onSent?: (order: PlacedOrder | null) => void;
  /** Tells the parent which side is selected (the sheet's title follows it). */
  onSideChange?: (side: Side) => void;
  testIdPrefix?: string;
}

function resultMessage(r: PlacedOrder, coin: string): { text: string; kind: "success" | "info" | "warning" } {
  const filled = toUnits(r.filled);
  const anyFilled = filled !== null && filled.units > 0n;
  switch (r.status) {
    case "filled":
      return { text: m.spot_result_filled({ qty: formatMoney(r.filled, coin), coin }), kind: "success" };
    case "open":
      return anyFilled
        ? { text: m.spot_result_partly({ filled: formatMoney(r.filled, coin), remaining: formatMoney(r.remaining, coin), coin }), kind: "success" }
        : { text: m.spot_result_open(), kind: "success" };
    case "cancelled":
      return anyFilled
        ? { text: m.spot_result_ioc_partial({ filled: formatMoney(r.filled, coin), coin }), kind: "info" }
        : { text: m.spot_result_ioc_none(), kind: "warning" };
    default:
      return { text: m.spot_result_rejected(), kind: "warning" };
  }
}

export function OrderForm({ pair, balance, bestBid, bestAsk, initialSide = "buy", pick, onSent, onSideChange, testIdPrefix = "order" }: OrderFormProps) {
  const placeOrder = usePlaceOrder();
  const [side, setSide] = useState<Side>(initialSide);
  const [mode, setMode] = useState<OrderMode>(2);
  const [price, setPrice] = useState("");
  const [priceEdited, setEditedState] = useState(false);
  // Read by the follow effect at the moment it runs: an effect of a render from before the user
  // typed must not put the best price over what they typed.
  const editedNow = useRef(false);
  const setPriceEdited = (v: boolean) => {
    editedNow.current = v;
    setEditedState(v);
  };
  const [qty, setQty] = useState("");
  /** A market buy may be entered as the USDT to spend instead of a quantity. */
  const [byTotal, setByTotal] = useState(false);
  const [spend, setSpend] = useState("");
  const [percent, setPercent] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  // A guest sees the whole form; tapping buy/sell asks them to log in and brings them back here.
  const guest = useSession().token === "";
  /** The client order id of the order being sent; kept across retries of the same order. */
  const pendingOid = useRef<string | null>(null);

  const coin = pair.currency_name;
  const quote = pair.legal_name || "USDT";
  const priceDecimals = balance?.price_decimals ?? 2;
  const qtyDecimals = qtyDecimalsFor(balance?.qty_decimals ?? 6);
  const bestOpposite = side === "buy" ? bestAsk : bestBid;
  const bestSame = side === "buy" ? bestBid : bestAsk;
  const tid = (s: string) => `${testIdPrefix}-${s}`;
  const totalMode = mode === 1 && side === "buy" && byTotal;

  // Any change of what would be sent makes it a different order (a new client order id).
  useEffect(() => {
    pendingOid.current = null;
  }, [side, mode, price, qty, byTotal, spend]);

  // Until the user edits it, a limit price follows the best bid (buying) or best ask (selling).
  useEffect(() => {
    if (priceEdited || editedNow.current) return;
    setPrice(bestSame ?? "");
  }, [bestSame, priceEdited]);

  // A price tapped in the book: fill it in (as a limit order) and stop following.
  useEffect(() => {
    if (!pick) return;
    setMode(2);
    setPrice(pick.price);
    setPriceEdited(true);
    setProblem(null);
  }, [pick]);

  const changeSide = (next: Side) => {
    if (next === side) return;
    setSide(next);
    onSideChange?.(next);
    setPriceEdited(false);
    setQty("");
    setPercent(0);
    setProblem(null);
  };

  /** The price the slider and the total use: the limit typed, or a market order's protective limit. */
  const pricingPrice = mode === 2 ? price : side === "buy" ? (bestAsk ? marketLimitPrice(bestAsk, "buy", priceDecimals) ?? "" : "") : (bestBid ?? "");

  const applyPercent = (pct: number, atPrice = pricingPrice) => {
    setPercent(pct);
    setProblem(null);
    if (!balance) return;
    if (totalMode) return setSpend(sliderTotal(pct, balance.user_legal));
    setQty(
      sliderQuantity({
        side,
        percent: pct,
        price: atPrice,
        availableLegal: balance.user_legal,
        availableCurrency: balance.user_currency,
        decimals: qtyDecimals,
      }),
    );
  };

  const onPriceInput = (raw: string) => {
    const next = sanitizeDecimalInput(raw, priceDecimals);
    setPrice(next);
    setPriceEdited(true);
    setProblem(null);
    // A buy quantity set by the slider keeps meaning "that share of my USDT" at the new price.
    if (side === "buy" && percent > 0) applyPercent(percent, next);
  };

  const onQtyInput = (raw: string) => {
    if (totalMode) setSpend(sanitizeDecimalInput(raw, TOTAL_DECIMALS));
    else setQty(sanitizeDecimalInput(raw, qtyDecimals));
    setPercent(0);
    setProblem(null);
  };

  const changeMode = (next: OrderMode) => {
    setMode(next);
    setProblem(null);
    if (next === 2 && !priceEdited) setPrice(bestSame ?? "");
  };

  // Where the slider thumb sits for a typed quantity (drawing only).
  const shownPercent = (() => {
    if (totalMode) return percent > 0 || !balance || !isPositive(spend) ? percent : Math.min(100, (Number(spend) / Math.max(Number(balance.user_legal), 1e-9)) * 100);
    if (percent > 0 || !balance || !isPositive(qty)) return percent;
    const max = sliderQuantity({ side, percent: 100, price: pricingPrice, availableLegal: balance.user_legal, availableCurrency: balance.user_currency, decimals: qtyDecimals });
    const q = Number(qty);
    const mx = Number(max);
    return mx > 0 ? Math.min(100, (q / mx) * 100) : 0;
  })();

  const total = isPositive(pricingPrice) && isPositive(qty) ? orderTotal(mode === 2 ? price : (bestOpposite ?? "0"), qty, 2) : null;
  const marketHold = mode === 1 && side === "buy" && isPositive(pricingPrice) && isPositive(qty) ? orderTotal(pricingPrice, qty, 2) : null;

  const send = async () => {
    if (!balance) return;
    const oid = pendingOid.current ?? newClientOrderId();
    pendingOid.current = oid;
    setSubmitting(true);
    try {
      const result = await placeOrder(side, {
        currency_id: pair.currency_id,
        legal_id: LEGAL_ID,
        price: mode === 2 ? price : undefined,
        ...(totalMode ? { total: spend } : { num: qty }),
        mode,
        client_oid: oid,
      });
      pendingOid.current = null;
      const msg = resultMessage(result, coin);
      toast[msg.kind](msg.text);
      setQty("");
      setSpend("");
      setPercent(0);
      onSent?.(result);
    } catch (err) {
      // After a timeout or a dropped connection the order may or may not exist: a retry keeps the
      // same client order id, so the server answers with the first result instead of a second order.
      const unknownOutcome = err instanceof ApiFailure && (err.kind === "network" || err.kind === "timeout");
      if (unknownOutcome) setPriceEdited(true); // keep the price still, so a retry is the same order
      else pendingOid.current = null;
      if (err instanceof ApiFailure && err.kind === "error") setProblem(err.message);
      onSent?.(null);
    } finally {
      setSubmitting(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (guest) return navigateTo(loginPath());
    if (submitting || !balance) return;
    const check = totalMode ? checkTotal({ total: spend, bestAsk, balance }) : checkOrder({ side, mode, price, qty, bestOpposite, balance });
    if (check.problem) {
      const { key, params } = check.problem;
      // The band's ends as the form shows them (grouped), not as the wire carries them.
      const shown = key === "price_out_of_band" && params ? { ...params, low: formatPrice(String(params.low)), high: formatPrice(String(params.high)) } : params;
      const text = errText(key, shown);
      setProblem(text);
      toast.error(text);
      return;
    }
    setProblem(null);
    if (mode === 2 && bestOpposite && farFromMarket(side, price, bestOpposite)) {
      openConfirm({
        title: m.spot_far_title(),
        message:
          side === "buy"
            ? m.spot_far_buy({ price: formatPrice(price), best: formatPrice(bestOpposite) })
            : m.spot_far_sell({ price: formatPrice(price), best: formatPrice(bestOpposite) }),
        confirmText: m.spot_place_anyway(),
        cancelText: m.cancel(),
        onConfirm: () => void send(),
      });
      return;
    }
    void send();
  };

  const available = balance ? (side === "buy" ? `${formatMoney(balance.user_legal, quote)} ${quote}` : `${formatMoney(balance.user_currency, coin)} ${coin}`) : "--";
  // The pair's fee rates (from the quotation): a market order always takes (taker); a limit order
  // may rest (maker) or take. The fee comes out of what is received: the coin on a buy, USDT on a sell.
  const feeRate =
    pair.maker_fee === undefined || pair.taker_fee === undefined
      ? null
      : mode === 1 || pair.maker_fee === pair.taker_fee
        ? `${pair.taker_fee}%`
        : m.spot_fee_maker_taker({ maker: pair.maker_fee, taker: pair.taker_fee });
  const bestText = bestOpposite && !isZeroDecimal(bestOpposite) ? m.spot_best_price({ price: formatPrice(bestOpposite) }) : m.spot_best_price_none();

  return (
    <form className={`${s.orderForm} ${side === "sell" ? s.sideSell : ""}`} onSubmit={submit} noValidate data-testid={tid("form")}>
      <div className={s.sideToggle} role="tablist" aria-label={m.spot_side_label()}>
        <button type="button" role="tab" aria-selected={side === "buy"} className={side === "buy" ? `active ${s.buy}` : ""} onClick={() => changeSide("buy")} data-testid={tid("side-buy")}>
          {m.spot_buy()}
        </button>
        <button type="button" role="tab" aria-selected={side === "sell"} className={side === "sell" ? `active ${s.sell}` : ""} onClick={() => changeSide("sell")} data-testid={tid("side-sell")}>
          {m.spot_sell()}
        </button>
      </div>

      <div className={s.modeToggle} role="radiogroup" aria-label={m.spot_mode_label()}>
        <button type="button" role="radio" aria-checked={mode === 2} className={mode === 2 ? "active" : ""} onClick={() => changeMode(2)} data-testid={tid("mode-limit")}>
          {m.spot_limit()}
        </button>
        <button type="button" role="radio" aria-checked={mode === 1} className={mode === 1 ? "active" : ""} onClick={() => changeMode(1)} data-testid={tid("mode-market")}>
          {m.spot_market()}
        </button>
      </div>

      {mode === 2 ? (
        <label className={s.orderField}>
          <span className="visually-hidden">{m.spot_price()}</span>
          <input
            className={`input ${s.orderInput} num`}
            inputMode="decimal"
            autoComplete="off"
            placeholder={m.spot_price()}
            value={price}
            onChange={(e) => onPriceInput(e.target.value)}
            data-testid={tid("price")}
          />
          <span className={s.orderUnit}>{quote}</span>
        </label>
      ) : (
        <div className={s.orderField}>
          <input className={`input ${s.orderInput} ${s.readonly}`} readOnly value={m.spot_market_price()} aria-label={m.spot_price()} data-testid={tid("price-market")} tabIndex={-1} />
        </div>
      )}
      {mode === 2 && balance && (
        <p className={`${s.orderBest} num`} data-testid={tid("price-band")}>
          {balance.price_band_low !== null && balance.price_band_high !== null
            ? m.spot_price_band({ percent: balance.price_band_percent, low: formatPrice(balance.price_band_low), high: formatPrice(balance.price_band_high) })
            : m.spot_price_band_none({ percent: balance.price_band_percent })}
        </p>
      )}
      {mode === 1 && (
        <p className={`${s.orderBest} num`} data-testid={tid("best-price")}>
          {bestText}
        </p>
      )}

      {mode === 1 && side === "buy" && (
        <div className={`${s.modeToggle} ${s.byToggle}`} role="radiogroup" aria-label={m.spot_by_label()}>
          <button type="button" role="radio" aria-checked={!byTotal} className={!byTotal ? "active" : ""} onClick={() => { setByTotal(false); setPercent(0); }} data-testid={tid("by-qty")}>
            {m.spot_by_amount({ coin })}
          </button>
          <button type="button" role="radio" aria-checked={byTotal} className={byTotal ? "active" : ""} onClick={() => { setByTotal(true); setPercent(0); }} data-testid={tid("by-total")}>
            {m.spot_by_total({ quote })}
          </button>
        </div>
      )}

      <label className={s.orderField}>
        <span className="visually-hidden">{totalMode ? m.spot_total_spend() : m.spot_quantity()}</span>
        <input
          className={`input ${s.orderInput} num`}
          inputMode="decimal"
          autoComplete="off"
          placeholder={totalMode ? m.spot_total_spend() : m.spot_quantity()}
          value={totalMode ? spend : qty}
          onChange={(e) => onQtyInput(e.target.value)}
          data-testid={tid(totalMode ? "spend" : "qty")}
        />
        <span className={s.orderUnit}>{totalMode ? quote : coin}</span>
      </label>

      <div className={s.orderSlider} style={{ ["--pct" as string]: `${shownPercent}%` }}>
        <div className={s.orderSliderTrack} aria-hidden="true">
          <span className={s.orderSliderFill} />
          {SLIDER_STEPS.map((step) => (
            <span key={step} className={`${s.orderSliderDot} ${shownPercent >= step ? s.on : ""}`} style={{ left: `${step}%` }} />
          ))}
        </div>
        <input
          type="range"
          min={0}
          max={100}
          step={25}
          value={percent}
          aria-label={m.spot_slider_label()}
          aria-valuetext={`${percent}%`}
          onChange={(e) => applyPercent(Number(e.target.value))}
          disabled={!balance}
          data-testid={tid("slider")}
        />
        <div className={s.orderSliderLabels} aria-hidden="true">
          {SLIDER_STEPS.map((step) => (
            <button type="button" tabIndex={-1} key={step} onClick={() => applyPercent(step)} className={percent === step && step > 0 ? s.on : ""} data-testid={tid(`slider-${step}`)}>
              {step}%
            </button>
          ))}
        </div>
      </div>

      <dl className={s.orderFacts}>
        <div>
          <dt>{m.spot_total()}</dt>
          <dd className="num" data-testid={tid("total")}>
            {totalMode ? (isPositive(spend) ? `${formatMoney(spend, quote)} ${quote}` : `-- ${quote}`) : total ? `${mode === 1 ? "≈ " : ""}${formatMoney(total, quote)} ${quote}` : `-- ${quote}`}
          </dd>
        </div>
        <div>
          <dt>{m.spot_available()}</dt>
          <dd className="num" data-testid={tid("available")}>
            {available}
          </dd>
        </div>
        <div>
          <dt>{m.spot_fee_rate()}</dt>
          <dd className="num" data-testid={tid("fee-rate")}>
            {feeRate === null ? "--" : m.spot_fee_in({ rate: feeRate, currency: side === "buy" ? coin : quote })}
          </dd>
        </div>
      </dl>
      {totalMode ? (
        <p className={s.orderNote} data-testid={tid("total-note")}>{m.spot_total_note({ amount: isPositive(spend) ? formatMoney(spend, quote) : "--", quote })}</p>
      ) : mode === 1 && <p className={s.orderNote}>{marketHold ? m.spot_market_hold({ amount: formatMoney(marketHold, quote), quote }) : m.spot_market_note()}</p>}
      {problem && (
        <p className="field-error" role="alert" data-testid={tid("error")}>
          {problem}
        </p>
      )}

      <button type="submit" className={`btn btn-block ${s.orderSubmit} ${s[side]}`} disabled={submitting || (!balance && !guest)} aria-busy={submitting} data-testid={tid("submit")}>
        {submitting && <Spinner size={16} />}
        {side === "buy" ? m.spot_buy_coin({ coin }) : m.spot_sell_coin({ coin })}
      </button>
    </form>
  );
}
