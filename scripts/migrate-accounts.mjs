#!/usr/bin/env node
// `npm run migrate-accounts -- [--api http://127.0.0.1:8787] [--batch 100] [--range FIRST-LAST] [--verify-only]
//   [--cut-over-only] [--maintenance] [--end-maintenance] [--reason TEXT]`:
// moves every user's D1 balances into their account object (issue #28;
// docs/architecture/account-objects.md "Migration"), then verifies every user's totals.
//
// Two ways in, the same steps (worker/domain/ledger/account-cutover.ts):
// - a deployed exchange: `EXCHANGE_OPERATOR_TOKEN=<an operator's session token> npm run migrate-accounts
//   -- --api https://exchange.example.com`: the operators' routes under /api/admin/accounts, each
//   step audited as that operator with `--reason` (docs/operations.md "Where balances live"). The
//   token is read from the environment only, so it stays out of the shell's history and the
//   process list; `--token` is refused.
// - without a token, a running local exchange (`npm start`): the routes under /api/dev/accounts,
//   which answer only there (audited as operator 0).
//
// It copies only inside the read-only window (worker/lib/maintenance.ts): with the maintenance
// switch off it stops (exit 2) unless `--maintenance` asks it to turn the switch on itself (audited
// as the operator, or operator 0 locally). It then waits until every Worker isolate sees the window and the money requests
// that passed the switch before it have ended (the state's refresh_ms + settle_ms after it started).
// The window stays on at the end (the products are switched to the objects next: "Cut-over");
// `--end-maintenance` turns it off when every total matched. A run over every user (no `--range`)
// whose totals all matched records the cut-over in D1 (POST …/accounts/cut-over), which a
// Worker with ACCOUNTS=objects waits for before it moves any money (the operators' route records it
// only when, in this window, every user and the system accounts were compared equal).
// `--cut-over-only` asks for that record alone (after ranges were opened and verified side by side).
//
// Each step opens the next `--batch` users' objects after the cursor
// kept in D1 (`account_migration`), so the script can be stopped anywhere and run again: it
// resumes at the cursor, and a user opened twice is opened once (the object's opening is keyed).
// Then every user is drained into the read model and compared, exactly, in D1, in the object and
// in the read model. The system accounts (treasury, fees, …) are opened in their shards
// (`system:{id}:{k}`), each D1 balance split over them, and compared the same way.
// Prints the rates and what they mean for 1,000,000 users.
// `--range 1-500000` takes only those user ids, with a cursor of its own: several drivers run side
// by side on different ranges.
// Exits 0 when every user matches, 1 when any does not (or a step failed), 2 on a usage error.

const args = process.argv.slice(2);
const valueOf = (flag, fallback) => {
  const i = args.indexOf(flag);
  return i >= 0 ? (args[i + 1] ?? "") : fallback;
};
const api = valueOf("--api", "http://127.0.0.1:8787").replace(/\/$/, "");
const batch = Number(valueOf("--batch", "100"));
const verifyOnly = args.includes("--verify-only");
const cutOverOnly = args.includes("--cut-over-only");
const rangeText = valueOf("--range", "");
const turnOn = args.includes("--maintenance");
const turnOff = args.includes("--end-maintenance");
const reason = valueOf("--reason", "npm run migrate-accounts").trim();
const token = (process.env.EXCHANGE_OPERATOR_TOKEN ?? "").trim();
const range = /^\d+-\d+$/.test(rangeText) ? { first: Number(rangeText.split("-")[0]), last: Number(rangeText.split("-")[1]) } : undefined;
if (args.includes("--token")) {
  console.error("--token: put the operator's session token in EXCHANGE_OPERATOR_TOKEN instead (it then stays out of the shell history and the process list)");
  process.exit(2);
}
if (!/^https?:\/\//.test(api) || !Number.isInteger(batch) || batch < 1 || batch > 500 || (rangeText !== "" && !(range && range.first >= 1 && range.last >= range.first)) || reason === "" || (cutOverOnly && (range || verifyOnly))) {
  console.error("usage: [EXCHANGE_OPERATOR_TOKEN=…] npm run migrate-accounts -- [--api http://127.0.0.1:8787] [--batch 1..500] [--range FIRST-LAST] [--verify-only | --cut-over-only] [--maintenance] [--end-maintenance] [--reason TEXT]");
  process.exit(2);
}
if (token === "" && /^https:\/\//.test(api)) console.error("no EXCHANGE_OPERATOR_TOKEN: using the local routes (/api/dev/accounts), which a deployed exchange does not have");

// The operators' routes with a token (each body carries the reason), the local ones without.
const accounts = token ? "/admin/accounts" : "/dev/accounts";
const switchPath = token ? "/admin/maintenance" : "/dev/accounts/maintenance";
const withReason = (body) => (token && body !== undefined ? { reason, ...body } : body);

async function post(path, body, tries = 3) {
  const headers = { lang: "en", ...(token ? { authorization: token } : {}) };
  const payload = withReason(body);
  const res = await fetch(`${api}/api${path}`, payload === undefined ? { headers } : { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(payload) });
  const json = await res.json().catch(() => ({}));
  if (res.status === 404) throw new Error(`${path}: 404 (${token ? "this deployment has no operators' cut-over routes: deploy this version first" : "the routes answer only under npm start, with DEV_OUTBOX and DEV_CLOCK on; a deployed exchange: set EXCHANGE_OPERATOR_TOKEN"})`);
  if (res.status === 401 || res.status === 403) throw new Error(`${path}: HTTP ${res.status} ${json.message ?? ""} (EXCHANGE_OPERATOR_TOKEN must be a live session token of an operator)`);
  // The server's clock decides when the window has settled: wait what it says, then again.
  if (json.code === "accounts_window_settling" && tries > 0) {
    const seconds = Number(/(\d+) s/.exec(json.message ?? "")?.[1] ?? "2");
    await new Promise((resolve) => setTimeout(resolve, (seconds + 1) * 1000));
    return post(path, body, tries - 1);
  }
  if (!res.ok || json.type !== "ok") throw new Error(`${path}: HTTP ${res.status} ${json.code ?? ""}: ${json.message ?? JSON.stringify(json).slice(0, 300)}`);
  return json.message;
}

const perMillion = (perSecond) => {
  if (!(perSecond > 0)) return "n/a";
  const s = 1_000_000 / perSecond;
  return s < 3600 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
};

// Where it stands: an exchange already cut over has nothing to copy (the operators' routes refuse).
if (token) {
  const state = await post(`${accounts}/state`);
  console.log(`${api}: ACCOUNTS=${state.accounts}, opened up to user ${state.opened_to}, maintenance window ${state.window.on ? "on" : "off"}`);
  if (state.cut_over !== null) {
    console.log(`the cut-over is recorded already (${state.cut_over}): the balances live in the account objects; nothing to copy`);
    process.exit(0);
  }
}

// The read-only window first: nothing is copied while money can still move.
let window = await post(switchPath);
if (!window.on) {
  if (!turnOn) {
    console.error("the maintenance window is off: turn it on in the operator console (POST /api/admin/maintenance) or pass --maintenance");
    process.exit(2);
  }
  window = await post(switchPath, { on: true, reason });
  console.log(`maintenance window on since ${new Date(window.since).toISOString()}: money routes answer "maintenance", money crons skip`);
}
const readyAt = window.since + window.refresh_ms + window.settle_ms;
if (Date.now() < readyAt) {
  console.log(`waiting ${((readyAt - Date.now()) / 1000).toFixed(1)} s until every isolate sees the window and the money requests before it have ended`);
  await new Promise((resolve) => setTimeout(resolve, readyAt - Date.now()));
}

let bad = 0;
if (cutOverOnly) {
  const { cut_over } = await post(`${accounts}/cut-over`, {});
  console.log(`cut-over recorded in D1 (settings accounts_cut_over: ${cut_over})`);
  process.exit(0);
}
if (!verifyOnly) {
  const started = Date.now();
  let opened = 0;
  let seen = 0;
  for (;;) {
    const step = await post(`${accounts}/migrate`, { limit: batch, ...range });
    opened += step.imported;
    seen += step.seen;
    for (const f of step.failed) console.error(`user ${f.user_id}: not opened: ${f.error}`);
    for (const u of step.mismatched) console.error(`user ${u}: opened before, no longer equals D1`);
    bad += step.mismatched.length;
    if (step.failed.length) {
      console.error(`stopped at cursor ${step.cursor}: fix the failures above and run again (it resumes there)`);
      process.exit(1);
    }
    console.log(`cursor ${step.cursor}: ${opened} opened, ${seen} found opened before`);
    if (step.done) break;
  }
  const s = (Date.now() - started) / 1000;
  console.log(`opened ${opened} users in ${s.toFixed(1)} s (${(opened / s).toFixed(1)}/s; 1,000,000 users at this rate: ${perMillion(opened / s)})`);
}

// The system accounts (treasury, fees, …): each D1 balance split over its shards, opened once, then compared.
const system = await post(`${accounts}/system`, {});
for (const r of system.skipped) console.log(`system account ${r.user_id} ${r.account} currency ${r.currency_id}: ${r.available}/${r.frozen} left in D1 (below zero by design: it mirrors the outside world)`);
for (const m of system.mismatched) console.error(`system account ${m.user_id}: D1 and the ${m.where === "object" ? "shards" : "shards' read model"} differ`);
bad += system.mismatched.length;
console.log(`system shards: ${system.imported} opened, ${system.seen} found opened before`);

const started = Date.now();
let checked = 0;
let after = range ? range.first - 1 : 0;
for (;;) {
  const v = await post(`${accounts}/verify`, { after, limit: batch, ...(range ? { last: range.last } : {}) });
  checked += v.checked;
  for (const m of v.mismatched) console.error(`user ${m.user_id}: D1 and the ${m.where === "object" ? "account object" : "read model"} differ`);
  bad += v.mismatched.length;
  after = v.next;
  if (v.done) break;
}
const s = (Date.now() - started) / 1000;
console.log(`verified ${checked} users in ${s.toFixed(1)} s (${(checked / s).toFixed(1)}/s; 1,000,000 users at this rate: ${perMillion(checked / s)}): ${bad === 0 ? "every total matches" : `${bad} differences`}`);
// Every user of the exchange compared (not one range) and every total matched: D1 records the
// cut-over, and from then on a Worker with ACCOUNTS=objects moves money (worker/lib/maintenance.ts:
// until then it refuses every money route, so a deploy alone never shows users the empty objects).
if (bad === 0 && !range) {
  const { cut_over } = await post(`${accounts}/cut-over`, {});
  console.log(`cut-over recorded in D1 (settings accounts_cut_over: ${cut_over})`);
}
if (bad === 0 && turnOff) {
  await post(switchPath, { on: false, reason: `${reason}: every total matches` });
  console.log("maintenance window off: money moves again");
} else console.log(`the maintenance window stays on${bad === 0 ? ": deploy with ACCOUNTS = \"objects\" if this Worker still runs \"d1\", then end it in the console" : ": fix the differences above first"}`);
process.exit(bad === 0 ? 0 : 1);
