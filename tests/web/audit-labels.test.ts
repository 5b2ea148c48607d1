// The operator console's audit log as a person reads it (web/src/features/operator/labels.ts):
// action names in words, the user's account instead of an id, amounts as decimals with their
// currency (never minimal units), reason codes spelled out, nothing recorded dropped.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuditRow } from "../../schemas/operator.ts";
import { actionLabel, auditFacts } from "../../web/src/features/operator/labels.ts";
import { loadLocale, setAppLocale } from "../../web/src/i18n/index.ts";

beforeAll(async () => {
  await loadLocale("en");
});

function row(over: Partial<AuditRow>): AuditRow {
  return {
    id: 1,
    operator_id: 7,
    operator_account: "operator@exchange.test",
    action: "deposit.approve",
    target_type: "deposit",
    target_id: "12",
    reason: "",
    detail: null,
    created_at: 0,
    time_format: "2026-11-23 12:00:00",
    subject: null,
    amount: null,
    wallet_account: null,
    accounts: {},
    ...over,
  };
}

const facts = (a: AuditRow) => Object.fromEntries(auditFacts(a).map((f) => [f.key, f.value]));

describe("audit log labels", () => {
  it("names actions in words and says when one was refused", () => {
    expect(actionLabel("deposit.approve_first")).toBe("First approval of a deposit");
    expect(actionLabel("withdrawal.chain_success")).toBe("Confirmed a withdrawal on chain");
    expect(actionLabel("adjustment.approve.refused")).toBe("Refused: Applied a balance adjustment");
    expect(actionLabel("operator.money.refused")).toBe("Refused: Tried to move money as an operator");
    expect(actionLabel("something.new")).toBe("something.new");
  });

  it("shows a deposit's user by account and its amount as a grouped decimal with the currency, not minimal units", () => {
    const f = facts(
      row({
        subject: { id: 42, account: "demo1@exchange.test" },
        amount: { value: "20000.00000000", currency: "USDT" },
        detail: { user_id: 42, currency_id: 3, amount: "2000000000000", first_approved_by: 9 },
        accounts: { "42": "demo1@exchange.test", "9": "op2@exchange.test" },
      }),
    );
    expect(f.user).toBe("demo1@exchange.test (ID 42)");
    expect(f.amount).toBe("20,000 USDT");
    expect(f.first_approved_by).toBe("op2@exchange.test (ID 9)");
    expect(f.target).toBe("Deposits #12");
    expect(Object.values(f).join(" ")).not.toContain("2000000000000");
  });

  it("shows an adjustment's account, requester, signed amount and reason", () => {
    const f = facts(
      row({
        action: "adjustment.approve",
        target_type: "adjustment",
        reason: "support ticket 42",
        subject: { id: 5, account: "a@x.test" },
        amount: { value: "-0.12500000", currency: "BTC" },
        wallet_account: "change",
        detail: { user_id: 5, currency_id: 1, account: "change", amount: "-12500000", requested_by: 8 },
        accounts: { "8": "op1@x.test" },
      }),
    );
    expect(f).toMatchObject({ amount: "-0.125 BTC", account: "Spot account", requested_by: "op1@x.test (ID 8)", reason: "support ticket 42" });
  });

  it("spells out refusal codes, withdrawal state changes and reconciliation results", () => {
    expect(facts(row({ action: "deposit.approve.refused", reason: "own_record" })).reason).toBe("Own account: an operator never decides on it");
    expect(facts(row({ action: "withdrawal.approve", target_type: "withdrawal", detail: { from: 0, to: 1 } })).state).toBe("Applying → Awaiting chain");
    expect(facts(row({ action: "reconcile.run", target_type: "reconciliation", detail: { ok: true, differences: 0 } })).result).toBe("No differences: the books are right");
    expect(facts(row({ action: "reconcile.run", target_type: "reconciliation", detail: { ok: false, differences: 2 } })).result).toBe("2 difference(s) found");
  });

  it("speaks the operator's language", async () => {
    await setAppLocale("zh");
    try {
      expect(actionLabel("deposit.approve")).toBe("入账充值");
      expect(facts(row({ subject: { id: 1, account: "a@x.test" }, amount: { value: "1234.5", currency: "USDT" } }))).toMatchObject({ amount: "1,234.5 USDT" });
      expect(auditFacts(row({ subject: { id: 1, account: "a@x.test" } }))[0]!.label).toBe("用户");
    } finally {
      await setAppLocale("en");
    }
  });

  it("has words for every action the server records, and every kind of record, in each language", async () => {
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
    const actions = new Set<string>(["c2c.merchant.approve", "c2c.merchant.reject", "vote.round.close", "vote.round.cancel", "c2c.appeal.release", "c2c.appeal.return", "mining.payout.approve", "mining.payout.reject"]);
    const targets = new Set<string>();
    for (const f of files("worker")) {
      const src = readFileSync(f, "utf8");
      for (const x of src.matchAll(/action: "([a-z_]+(?:\.[a-z_]+)+)"/g)) actions.add(x[1]!.replace(/\.refused$/, ""));
      for (const x of src.matchAll(/'([a-z_]+(?:\.[a-z_]+)+)', '([a-z_]+)'/g)) {
        actions.add(x[1]!);
        targets.add(x[2]!);
      }
      for (const x of src.matchAll(/targetType: "([a-z_]+)"/g)) targets.add(x[1]!);
    }
    expect(actions.size).toBeGreaterThan(30);
    for (const lang of ["en", "zh"] as const) {
      await setAppLocale(lang);
      try {
        for (const a of actions) expect(actionLabel(a), a).not.toBe(a);
        for (const t of targets) expect(facts(row({ target_type: t, target_id: "3" })).target, t).not.toMatch(new RegExp(`^${t} #`));
      } finally {
        await setAppLocale("en");
      }
    }
    expect(actionLabel("liabilities.snapshot")).toBe("Took a liabilities snapshot");
    expect(actionLabel("launch.cancel.refused")).toBe("Refused: Cancelled a token sale and refunded it");
  });

  it("keeps details it has no words for, as recorded", () => {
    expect(facts(row({ detail: { note: "late claim", extra: { a: 1 } } })).other).toBe('note: late claim · extra: {"a":1}');
  });
});
