/**
 * Exports (issue #29): one's ledger (every balance change with the balance after it) and one's
 * spot trades as CSV files for a spreadsheet or a tax tool, dated in UTC, amounts exact.
 */
import { useState } from "react";
import { m, useLocale } from "../../../i18n/index.ts";
import { Spinner } from "../../../components/States.tsx";
import { downloadCsv } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./access.module.css";

export default function ExportPage() {
  useLocale();
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [busy, setBusy] = useState<"" | "ledger.csv" | "trades.csv">("");
  const wrongOrder = from !== "" && to !== "" && from > to;

  const download = async (file: "ledger.csv" | "trades.csv") => {
    if (busy || wrongOrder) return;
    setBusy(file);
    try {
      await downloadCsv(file, { from, to });
    } finally {
      setBusy("");
    }
  };

  return (
    <div className={acct.acctPage} data-testid="export-page">
      <p className={`${acct.notice} ${acct.noticeInfo}`}>{m.export_intro()}</p>
      <div className="card form">
        <div className={s.dateRow}>
          <label className="field">
            <span className="field-label">{m.export_from()}</span>
            <input className="input" type="date" value={from} onChange={(e) => setFrom(e.target.value)} data-testid="export-from" />
          </label>
          <label className="field">
            <span className="field-label">{m.export_to()}</span>
            <input className="input" type="date" value={to} onChange={(e) => setTo(e.target.value)} data-testid="export-to" />
          </label>
        </div>
        <span className="form-note">{m.export_range_note()}</span>
        {wrongOrder && <span className="field-error">{m.export_wrong_order()}</span>}
        <div className={s.downloads}>
          <button type="button" className="btn btn-primary btn-block" onClick={() => void download("ledger.csv")} disabled={!!busy || wrongOrder} data-testid="export-ledger">
            {busy === "ledger.csv" && <Spinner size={16} />}
            {m.export_ledger()}
          </button>
          <span className="form-note">{m.export_ledger_note()}</span>
          <button type="button" className="btn btn-outline btn-block" onClick={() => void download("trades.csv")} disabled={!!busy || wrongOrder} data-testid="export-trades">
            {busy === "trades.csv" && <Spinner size={16} />}
            {m.export_trades()}
          </button>
          <span className="form-note">{m.export_trades_note()}</span>
        </div>
      </div>
    </div>
  );
}
