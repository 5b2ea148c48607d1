// The withdrawal whitelist and the settings lock (issue #29): with the whitelist on a withdrawal
// goes only to the address book, and an entry added while it is on opens 24 hours later (the dev
// clock moves time); the lock refuses changes to the whitelist, the address book and the second
// factors, and a change sent alongside a lock either committed before it or is refused.
import { env } from "cloudflare:test";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { advanceDevClock, resetDevClock } from "../../worker/lib/clock.ts";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { bal, expectBooksBalanced, FUND_PASSWORD, makeWithdrawer, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";
import { lockSettings, noticeKinds, setWhitelist, totp, withTotp, type TotpUser } from "./guard-fixtures.ts";

const LISTED = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
const OTHER = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";

beforeAll(seedWalletCurrencies);
afterEach(expectBooksBalanced);
afterAll(() => resetDevClock(env.DB));

async function withdrawer(): Promise<TotpUser> {
  return withTotp(await makeWithdrawer([{ currencyId: USDT, units: u8("1000") }]));
}

async function withdraw(user: TotpUser, address: string) {
  return api("/wallet/out", { token: user.token, body: { currency: USDT, address, number: "50", type: 1, password: FUND_PASSWORD, totp_code: await totp(user) } });
}

const addAddress = (user: TestUser, address: string) => api("/user/addresses", { token: user.token, body: { currency: USDT, address, type: 1, label: "mine" } });

describe("the withdrawal whitelist", () => {
  it("refuses a withdrawal to an address outside the address book, and moves nothing", async () => {
    const user = await withdrawer();
    expect((await addAddress(user, LISTED)).body.type).toBe("ok");
    expect((await setWhitelist(user, true)).body.message.whitelist).toBe(true);
    const before = await bal(user.id, USDT);
    const r = await withdraw(user, OTHER);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("address_not_whitelisted");
    expect(await bal(user.id, USDT)).toEqual(before);
    // An address that was in the book before the whitelist went on can be used at once.
    expect((await withdraw(user, LISTED)).body).toMatchObject({ type: "ok", message: { status: 0 } });
  });

  it("lets a withdrawal go anywhere again once the whitelist is off", async () => {
    const user = await withdrawer();
    await setWhitelist(user, true);
    expect((await withdraw(user, OTHER)).body.code).toBe("address_not_whitelisted");
    expect((await setWhitelist(user, false)).body.message.whitelist).toBe(false);
    expect((await withdraw(user, OTHER)).body.type).toBe("ok");
  });

  it("refuses an entry added while the whitelist is on until 24 hours have passed, naming when it opens", async () => {
    const user = await withdrawer();
    await setWhitelist(user, true);
    const added = await addAddress(user, OTHER);
    expect(added.body.message.usable_from).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const listed = (await api("/user/addresses", { token: user.token })).body.message;
    expect(listed[0]).toMatchObject({ address: OTHER, usable_from: added.body.message.usable_from });

    const early = await withdraw(user, OTHER);
    expect(early.body.code).toBe("address_cooling");
    expect(early.body.message).toContain(added.body.message.usable_from);

    await advanceDevClock(env.DB, 23 * 3600);
    expect((await withdraw(user, OTHER)).body.code).toBe("address_cooling");
    await advanceDevClock(env.DB, 3600 + 1);
    expect((await withdraw(user, OTHER)).body).toMatchObject({ type: "ok", message: { status: 0 } });
    expect((await api("/user/addresses", { token: user.token })).body.message[0].usable_from).toBeNull();
  });

  it("needs a second factor to be turned on or off", async () => {
    const plain = await makeUser();
    const r = await api("/security/whitelist", { token: plain.token, body: { on: true } });
    expect(r.body.code).toBe("second_factor_required");
    const user = await withdrawer();
    expect((await api("/security/whitelist", { token: user.token, body: { on: true } })).body.code).toBe("totp_required");
    expect((await api("/security/whitelist", { token: user.token, body: { on: true, totp_code: "000000" } })).body.code).toBe("totp_wrong");
    expect((await api("/security/settings", { token: user.token })).body.message.whitelist).toBe(false);
  });

  it("notifies every change of the whitelist and the address book", async () => {
    const user = await withdrawer();
    const id = (await addAddress(user, LISTED)).body.message.id;
    await setWhitelist(user, true);
    await setWhitelist(user, false);
    expect((await api("/user/addresses/delete", { token: user.token, body: { id } })).body.type).toBe("ok");
    const kinds = (await noticeKinds(user.id)).map((n) => n.kind);
    expect(kinds).toEqual(["security_address_added", "security_whitelist_on", "security_whitelist_off", "security_address_removed"]);
    const inbox = (await api("/notifications", { token: user.token })).body.message.data;
    expect(inbox[3].title).toBe("Withdrawal address added");
    expect(inbox[3].body).toContain(LISTED);
  });
});

describe("the settings lock", () => {
  it("refuses changes to the whitelist, the address book and the second factors until it ends", async () => {
    const user = await withdrawer();
    const id = (await addAddress(user, LISTED)).body.message.id;
    const locked = await lockSettings(user, 2);
    expect(locked.body.message.locked_until_text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    const refusals = [
      await setWhitelist(user, true),
      await addAddress(user, OTHER),
      await api("/user/addresses/delete", { token: user.token, body: { id } }),
      await api("/user/fund_password", { token: user.token, body: { fund_password: "246810", re_fund_password: "246810", old_fund_password: FUND_PASSWORD } }),
      await api("/user/totp/disable", { token: user.token, body: { code: await totp(user) } }),
      await api("/security/anti_phishing", { token: user.token, body: { code: "Blue42", totp_code: await totp(user) } }),
    ];
    for (const r of refusals) {
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.code).toBe("settings_locked");
      expect(r.body.message).toContain(locked.body.message.locked_until_text);
    }
    const settings = (await api("/security/settings", { token: user.token })).body.message;
    expect(settings).toMatchObject({ whitelist: false, totp_enabled: true, anti_phishing_code: null });
    expect((await api("/user/addresses", { token: user.token })).body.message.map((a: { address: string }) => a.address)).toEqual([LISTED]);
    // The old fund password still authorises a withdrawal.
    expect((await withdraw(user, OTHER)).body.type).toBe("ok");

    // A lock only grows: asking for a shorter one keeps the end.
    expect((await lockSettings(user, 1)).body.message.locked_until).toBe(locked.body.message.locked_until);

    await advanceDevClock(env.DB, 2 * 86400 + 1);
    expect((await api("/security/settings", { token: user.token })).body.message.locked_until).toBeNull();
    expect((await setWhitelist(user, true)).body.message.whitelist).toBe(true);
  });

  it("lets no change sent alongside a lock slip past it: each one committed before the lock or was refused", async () => {
    const user = await withdrawer();
    const addresses = Array.from({ length: 12 }, (_, i) => `TQn9Y2khEsLJW1ChVWFMSMeRDow5Kcb${String(i).padStart(3, "0")}`);
    const code = await totp(user);
    const [lock, ...adds] = await Promise.all([
      api("/security/lock", { token: user.token, body: { days: 1, totp_code: code } }),
      ...addresses.map((a) => addAddress(user, a)),
    ]);
    expect(lock.body.type, JSON.stringify(lock.body)).toBe("ok");
    const saved = new Set(((await api("/user/addresses", { token: user.token })).body.message as { address: string }[]).map((a) => a.address));
    adds.forEach((r, i) => {
      if (r.body.type === "ok") expect(saved.has(addresses[i]!)).toBe(true);
      else {
        expect(r.body.code).toBe("settings_locked");
        expect(saved.has(addresses[i]!)).toBe(false);
      }
    });
    // Each change writes its notification in its own batch, so their ids are the commit order:
    // every address that went in went in before the lock.
    const notes = await noticeKinds(user.id);
    const lockId = notes.find((n) => n.kind === "security_locked")!.id;
    const addedIds = notes.filter((n) => n.kind === "security_address_added").map((n) => n.id);
    expect(addedIds.length).toBe(saved.size);
    for (const added of addedIds) expect(added).toBeLessThan(lockId);
    // And after the lock answered, nothing gets in.
    expect((await addAddress(user, OTHER)).body.code).toBe("settings_locked");
  });

  it("needs a second factor and a number of days from 1 to 365", async () => {
    const user = await withdrawer();
    expect((await api("/security/lock", { token: user.token, body: { days: 1 } })).body.code).toBe("totp_required");
    for (const days of [0, 366, 1.5, "x", -1]) {
      const r = await api("/security/lock", { token: user.token, body: { days, totp_code: await totp(user) } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("lock_days");
    }
    expect((await api("/security/settings", { token: user.token })).body.message.locked_until).toBeNull();
  });
});
