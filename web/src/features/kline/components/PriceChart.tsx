/**
 * The candlestick chart (lightweight-charts 5, dark): candles with volume and MA5/MA10/MA30 of
 * closes, or for "realtime" a line of 1-minute closes. History comes from new_timeshar; the open
 * bar then follows the pair's kline topic. Axis and crosshair times are Beijing time. With no
 * trade yet the chart stays empty with a note: nothing is drawn that did not trade.
 */
import { useEffect, useRef, useState } from "react";
import {
  CandlestickSeries,
  ColorType,
  CrosshairMode,
  HistogramSeries,
  LineSeries,
  createChart,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp,
} from "lightweight-charts";
import type { Bar, KlinePeriodName } from "../../../../../schemas/realtime.ts";
import { m } from "../../../i18n/index.ts";
import { chartPriceFormatter } from "../../../lib/format.ts";
import { marketOf, type MarketPair } from "../../../lib/market/index.ts";
import { useSocketStatus } from "../../../lib/realtime.ts";
import { Spinner } from "../../../components/States.tsx";
import { fetchBars } from "../api.ts";
import {
  BARS_WANTED,
  MA_WINDOWS,
  PERIOD_MS,
  crosshairLabel,
  decimalsOf,
  lastMovingAverage,
  movingAverage,
  tickLabel,
  toChartBar,
  upsertBar,
  type ChartBar,
  type Interval,
} from "../chartData.ts";
import s from "./kline.module.css";

const UP = "#2ebd85";
const DOWN = "#f6465d";
const MA_COLORS = ["#f0b90b", "#5b8def", "#c084fc"] as const;
const LINE = "#f0b90b";

type Status = "loading" | "ready" | "empty" | "error";

interface SeriesSet {
  main: ISeriesApi<"Candlestick"> | ISeriesApi<"Line">;
  volume: ISeriesApi<"Histogram"> | null;
  ma: ISeriesApi<"Line">[];
}

const ts = (seconds: number) => seconds as UTCTimestamp;

export function PriceChart({ pair, symbol, interval }: { pair: MarketPair; symbol: string; interval: Interval }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<SeriesSet | null>(null);
  const bars = useRef<ChartBar[]>([]);
  /** A live bar that arrived while history was loading. */
  const early = useRef<ChartBar | null>(null);
  const loaded = useRef(false);
  const [status, setStatus] = useState<Status>("loading");
  const [count, setCount] = useState(0);
  const [legend, setLegend] = useState<(number | null)[]>([]);
  const [precision, setPrecision] = useState(2);
  const [attempt, setAttempt] = useState(0);
  const period: KlinePeriodName = interval === "realtime" ? "1min" : interval;
  const candles = interval !== "realtime";

  // One chart per interval: candles + volume + MAs, or a single line.
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const c = createChart(el, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: "#0b0e11" }, textColor: "#848e9c", fontSize: 11 },
      grid: { vertLines: { color: "#1a1f24" }, horzLines: { color: "#1a1f24" } },
      rightPriceScale: { borderColor: "#2b3139" },
      timeScale: {
        borderColor: "#2b3139",
        timeVisible: true,
        secondsVisible: false,
        // Room right of the newest bar, so its time label is not cut by the price axis.
        rightOffset: 3,
        tickMarkFormatter: (time: unknown, kind: number) => tickLabel(Number(time), kind),
      },
      localization: { timeFormatter: (time: unknown) => crosshairLabel(Number(time), interval) },
      crosshair: { mode: CrosshairMode.Normal },
    });
    let set: SeriesSet;
    if (candles) {
      const main = c.addSeries(CandlestickSeries, {
        upColor: UP,
        downColor: DOWN,
        borderUpColor: UP,
        borderDownColor: DOWN,
        wickUpColor: UP,
        wickDownColor: DOWN,
      });
      const volume = c.addSeries(HistogramSeries, { priceFormat: { type: "volume" }, priceScaleId: "", lastValueVisible: false, priceLineVisible: false });
      volume.priceScale().applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
      main.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.22 } });
      const ma = MA_WINDOWS.map((_, i) =>
        c.addSeries(LineSeries, { color: MA_COLORS[i], lineWidth: 1, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false }),
      );
      set = { main, volume, ma };
    } else {
      const main = c.addSeries(LineSeries, { color: LINE, lineWidth: 2 });
      set = { main, volume: null, ma: [] };
    }
    chart.current = c;
    series.current = set;
    return () => {
      series.current = null;
      chart.current = null;
      c.remove();
    };
  }, [interval, candles]);

  const applyPrecision = (p: number) => {
    const set = series.current;
    if (!set) return;
    // The axis, crosshair and last-price labels use the app's one number formatter (grouped).
    const priceFormat = { type: "custom" as const, formatter: chartPriceFormatter(p), minMove: 1 / 10 ** p };
    set.main.applyOptions({ priceFormat });
    for (const l of set.ma) l.applyOptions({ priceFormat });
  };

  const refreshLegend = () => setLegend(MA_WINDOWS.map((n) => lastMovingAverage(bars.current, n)));

  const drawAll = () => {
    const set = series.current;
    if (!set) return;
    const data = bars.current;
    if (candles) {
      (set.main as ISeriesApi<"Candlestick">).setData(data.map((b) => ({ time: ts(b.time), open: b.open, high: b.high, low: b.low, close: b.close })));
      set.volume?.setData(data.map((b) => ({ time: ts(b.time), value: b.volume, color: b.close >= b.open ? "rgba(46,189,133,0.45)" : "rgba(246,70,93,0.45)" })));
      MA_WINDOWS.forEach((n, i) => set.ma[i]?.setData(movingAverage(data, n).map((p) => ({ time: ts(p.time), value: p.value }))));
    } else {
      (set.main as ISeriesApi<"Line">).setData(data.map((b) => ({ time: ts(b.time), value: b.close })));
    }
    refreshLegend();
    setCount(data.length);
  };

  const drawLast = () => {
    const set = series.current;
    const b = bars.current[bars.current.length - 1];
    if (!set || !b) return;
    if (candles) {
      (set.main as ISeriesApi<"Candlestick">).update({ time: ts(b.time), open: b.open, high: b.high, low: b.low, close: b.close });
      set.volume?.update({ time: ts(b.time), value: b.volume, color: b.close >= b.open ? "rgba(46,189,133,0.45)" : "rgba(246,70,93,0.45)" });
      MA_WINDOWS.forEach((n, i) => {
        const v = lastMovingAverage(bars.current, n);
        if (v !== null) set.ma[i]?.update({ time: ts(b.time), value: v });
      });
    } else {
      (set.main as ISeriesApi<"Line">).update({ time: ts(b.time), value: b.close });
    }
    refreshLegend();
    setCount(bars.current.length);
  };

  // History for the interval (again after a reconnect).
  useEffect(() => {
    const controller = new AbortController();
    bars.current = [];
    early.current = null;
    loaded.current = false;
    setStatus("loading");
    setCount(0);
    setLegend([]);
    const now = Date.now();
    fetchBars(symbol, period, Math.max(0, now - PERIOD_MS[period] * BARS_WANTED), now + 60_000, controller.signal)
      .then((data) => {
        const p = decimalsOf(data[data.length - 1]?.close);
        setPrecision(p);
        applyPrecision(p);
        bars.current = data.map(toChartBar);
        const live = early.current;
        if (live) upsertBar(bars.current, live);
        drawAll();
        loaded.current = true;
        if (bars.current.length > 0) chart.current?.timeScale().scrollToRealTime();
        setStatus(bars.current.length > 0 ? "ready" : "empty");
      })
      .catch(() => {
        if (!controller.signal.aborted) setStatus("error");
      });
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [symbol, period, interval, attempt]);

  // The open bar from the pair's market store; every bar it sets is drawn.
  const onBar = useRef<(raw: Bar) => void>(() => undefined);
  onBar.current = (raw) => {
    const bar = toChartBar(raw);
    if (!loaded.current) {
      early.current = bar;
      return;
    }
    if (!upsertBar(bars.current, bar)) return;
    if (bars.current.length === 1) {
      const p = decimalsOf(raw.close);
      setPrecision(p);
      applyPrecision(p);
      drawAll();
      setStatus("ready");
    } else {
      drawLast();
    }
  };
  const $candle = marketOf(pair).candle(period);
  useEffect(
    () =>
      $candle.listen((raw) => {
        if (raw) onBar.current(raw);
      }),
    [$candle],
  );

  useSocketStatus(pair.id, () => setAttempt((a) => a + 1));

  return (
    <div className={s.klineChartWrap}>
      {candles && (
        <div className={`${s.klineLegend} num`} aria-hidden={status !== "ready"}>
          {MA_WINDOWS.map((n, i) => (
            <span key={n} style={{ color: MA_COLORS[i] }}>
              MA{n}: {legend[i] != null ? chartPriceFormatter(precision)(legend[i] as number) : "--"}
            </span>
          ))}
        </div>
      )}
      {/* A figure, not an img: the chart library puts its attribution link inside, and an img may hold nothing interactive. */}
      <div className={s.klineChart} ref={host} data-testid="kline-chart" data-bars={count} data-status={status} role="figure" aria-label={m.kline_chart_label()} />
      {status === "loading" && (
        <div className={s.klineChartOverlay}>
          <Spinner size={24} />
        </div>
      )}
      {status === "empty" && (
        <div className={s.klineChartOverlay} data-testid="kline-empty">
          <p>{m.kline_no_trades()}</p>
        </div>
      )}
      {status === "error" && (
        <div className={s.klineChartOverlay}>
          <p>{m.load_failed()}</p>
          <button type="button" className="btn btn-outline btn-small" onClick={() => setAttempt((a) => a + 1)}>
            {m.retry()}
          </button>
        </div>
      )}
    </div>
  );
}
