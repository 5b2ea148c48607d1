import { env } from "cloudflare:test";
import { imageSize } from "image-size";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { currentCode } from "../../worker/domain/account/totp.ts";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { ABC_CARD, BTC, ETH, expectBooksBalanced, makeOperator, seedWalletCurrencies, setPrice, u8, uploadImage, USDT, walletFingerprint } from "./wallet-fixtures.ts";

beforeAll(async () => {
  await seedWalletCurrencies();
  await setPrice(BTC, "30000");
});
afterEach(expectBooksBalanced);

const level1 = { name: "Li Lei", type: 1, card_id: "110101199003070011" };

async function pictures(user: TestUser) {
  return { front_pic: await uploadImage(user), reverse_pic: await uploadImage(user), hand_pic: await uploadImage(user) };
}

async function submit(user: TestUser, body: Record<string, unknown>) {
  return api("/user/real_name", { token: user.token, body });
}

async function center(user: TestUser) {
  return (await api("/user/center", { token: user.token })).body.message;
}

async function pendingId(userId: number) {
  return (await env.DB.prepare("SELECT id FROM kyc_submissions WHERE user_id = ? AND status = 1").bind(userId).first<{ id: number }>())!.id;
}

describe("identity verification", () => {
  it("puts a level-1 submission under review and locks the form while it is", async () => {
    const user = await makeUser();
    const r = await submit(user, level1);
    expect(r.body).toMatchObject({ type: "ok", message: { level: 1, review_status: 1 } });
    const again = await submit(user, { ...level1, name: "Han Meimei" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "kyc_under_review", message: "Your identity verification is under review" });
    expect(await center(user)).toMatchObject({ review_status: 1, level: 0, pending_level: 1, name: null, type: 1, card_id: "11**************11" });
  });

  it("verifies the user on approval: review_status 2, the real name shown, the same level locked", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    await submit(user, level1);
    const id = await pendingId(user.id);
    const queue = await api("/admin/kyc?status=1", { token: op.token });
    expect(queue.body.message.lists.find((k: any) => k.id === id)).toMatchObject({ user_id: user.id, account: user.account, level: 1, name: "Li Lei", card_id: "110101199003070011" });
    expect((await api(`/admin/kyc/${id}/approve`, { token: op.token, body: {} })).body.message).toEqual({ id, status: 2 });
    expect(await center(user)).toMatchObject({ review_status: 2, level: 1, pending_level: null, name: "Li Lei", rejection_reason: null });
    expect((await api("/user/info", { token: user.token })).body.message).toMatchObject({ review_status: 2, name: "Li Lei" });
    expect((await submit(user, level1)).body.code).toBe("kyc_approved");
    expect((await api(`/admin/kyc/${id}/approve`, { token: op.token, body: {} })).body.code).toBe("state_conflict");
    const audit = await env.DB.prepare("SELECT operator_id, action FROM audit_log WHERE target_type = 'kyc' AND target_id = ?").bind(String(id)).all();
    expect(audit.results).toEqual([{ operator_id: op.id, action: "kyc.approve" }]);
  });

  it("stores the reason of a rejection, shows it, and allows a new submission", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    await submit(user, level1);
    const id = await pendingId(user.id);
    expect((await api(`/admin/kyc/${id}/reject`, { token: op.token, body: {} })).body.code).toBe("reason_required");
    await api(`/admin/kyc/${id}/reject`, { token: op.token, body: { reason: "The document number does not match the photo" } });
    expect(await center(user)).toMatchObject({ review_status: 3, level: 0, rejection_reason: "The document number does not match the photo" });
    const again = await submit(user, { ...level1, card_id: "110101199003070012" });
    expect(again.body.message).toMatchObject({ review_status: 1 });
  });

  it("takes level 2 after level 1 with the caller's own pictures, and keeps the user verified if level 2 is rejected", async () => {
    const user = await makeUser();
    const op = await makeOperator();
    await submit(user, level1);
    await api(`/admin/kyc/${await pendingId(user.id)}/approve`, { token: op.token, body: {} });
    const pics = await pictures(user);
    const r = await submit(user, pics);
    expect(r.body.message).toEqual({ level: 2, review_status: 2, submitted: true });
    expect(await center(user)).toMatchObject({ review_status: 2, level: 1, pending_level: 2 });
    const id = await pendingId(user.id);
    const queued = (await api("/admin/kyc?status=1", { token: op.token })).body.message.lists.find((k: any) => k.id === id);
    expect(queued.front_pic).toMatch(/^\/api\/new\/upload\/file\//);
    await api(`/admin/kyc/${id}/reject`, { token: op.token, body: { reason: "blurred" } });
    expect(await center(user)).toMatchObject({ review_status: 2, level: 1, rejection_reason: "blurred" });
  });

  it("refuses another user's upload as a document picture", async () => {
    const user = await makeUser();
    const other = await makeUser();
    const r = await submit(user, { ...level1, front_pic: await uploadImage(other), reverse_pic: await uploadImage(user), hand_pic: await uploadImage(user) });
    expect(r.body).toMatchObject({ code: "picture_required", message: "Please upload the picture first (front_pic)" });
    expect((await env.DB.prepare("SELECT count(*) n FROM kyc_submissions WHERE user_id = ?").bind(user.id).first<{ n: number }>())!.n).toBe(0);
  });

  it("asks for level 1 first when pictures come without the identity fields", async () => {
    const user = await makeUser();
    const r = await submit(user, await pictures(user));
    expect(r.body).toMatchObject({ code: "kyc_level_order", message: "Please complete level 1 verification first" });
  });

  it.each([
    ["a name with digits", { name: "Li Lei 2" }, "name_no_digits"],
    ["a document number with Chinese characters", { card_id: "11010119900307中" }, "card_id_invalid"],
    ["a document number with spaces", { card_id: "1101 0119" }, "card_id_invalid"],
    ["an unknown document type", { type: 4 }, "invalid_param"],
    ["a missing document number", { card_id: undefined }, "missing_field"],
    ["an empty name", { name: "  " }, "missing_field"],
  ])("refuses %s and records nothing", async (_name, patch, code) => {
    const user = await makeUser();
    const before = await walletFingerprint();
    const r = await submit(user, { ...level1, ...patch });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
    expect(await walletFingerprint()).toBe(before);
  });

  describe("level 3", () => {
    async function level2User(balances: { currencyId: number; units: bigint }[]) {
      const user = await makeUser({ balances });
      const op = await makeOperator();
      await submit(user, { ...level1, ...(await pictures(user)) });
      await api(`/admin/kyc/${await pendingId(user.id)}/approve`, { token: op.token, body: {} });
      expect((await center(user)).level).toBe(2);
      return user;
    }

    it("refuses assets of exactly 20 BTC at the real price, naming the value", async () => {
      // 10 BTC + 300,000 USDT at 30,000 USDT/BTC = 20 BTC: not above the threshold.
      const user = await level2User([
        { currencyId: BTC, units: u8("10") },
        { currencyId: USDT, units: u8("300000") },
      ]);
      const r = await submit(user, { asset_pic: await uploadImage(user) });
      expect(r.body).toMatchObject({ code: "kyc_assets_low", message: "Level 3 needs total assets above 20 BTC (yours: 20.00000000 BTC)" });
    });

    it("accepts assets above 20 BTC, counting every account", async () => {
      const user = await level2User([
        { currencyId: BTC, units: u8("10") },
        { currencyId: USDT, units: u8("300003") },
      ]);
      await api("/wallet/change", { token: user.token, body: { number: "0.5", from_field: "change", to_field: "micro", currency_id: BTC } });
      await api("/wallet/change", { token: user.token, body: { number: "3", from_field: "change", to_field: "legal", currency_id: USDT } });
      const r = await submit(user, { asset_pic: await uploadImage(user) });
      expect(r.body.message).toMatchObject({ level: 3 });
      const row = await env.DB.prepare("SELECT asset_btc FROM kyc_submissions WHERE user_id = ? AND level = 3").bind(user.id).first<{ asset_btc: string }>();
      expect(row!.asset_btc).toBe("20.00010000");
    });

    it("counts a coin without a traded price as zero rather than inventing a value", async () => {
      const user = await level2User([{ currencyId: ETH, units: u8("100000") }]);
      const r = await submit(user, { asset_pic: await uploadImage(user) });
      expect(r.body.message).toBe("Level 3 needs total assets above 20 BTC (yours: 0.00000000 BTC)");
    });

    it("needs the asset picture", async () => {
      const user = await level2User([{ currencyId: BTC, units: u8("30") }]);
      expect((await submit(user, { level: 3 })).body).toMatchObject({ code: "picture_required" });
      expect((await submit(user, { level: 3, asset_pic: await uploadImage(user) })).body.type).toBe("ok");
    });
  });
});

describe("the receiving bank card", () => {
  it("saves a Luhn-valid card and fills the bank name from the card number", async () => {
    const user = await makeUser();
    const r = await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: "6228 4804 0256 4890 018", bank_name: "", bank_branch: "Haidian" } });
    expect(r.body.message).toEqual({ real_name: "Li Lei", bank_account: "***************0018", bank_name: "Agricultural Bank of China", bank_branch: "Haidian" });
    expect((await center(user)).bank).toEqual({ real_name: "Li Lei", bank_account: "***************0018", bank_name: "Agricultural Bank of China", bank_branch: "Haidian" });
    const stored = await env.DB.prepare("SELECT bank_account FROM bank_cards WHERE user_id = ?").bind(user.id).first<{ bank_account: string }>();
    expect(stored!.bank_account).toBe(ABC_CARD);
  });

  it("refuses a card number that fails the Luhn check with card_invalid, in the caller's language", async () => {
    const user = await makeUser();
    const before = await walletFingerprint();
    const r = await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: "6228480402564890019" }, lang: "zh" });
    expect(r.body).toMatchObject({ code: "card_invalid", message: "请输入正确的银行卡号" });
    expect((await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: "12345" } })).body.code).toBe("card_invalid");
    expect(await walletFingerprint()).toBe(before);
  });

  it("answers the on-blur lookup with the bank's name in the caller's language", async () => {
    const user = await makeUser();
    expect((await api("/user/bank_name?card=622848", { token: user.token })).body.message).toEqual({ bank_name: "Agricultural Bank of China", valid: false });
    expect((await api(`/user/bank_name?card=${ABC_CARD}`, { token: user.token, lang: "zh" })).body.message).toEqual({ bank_name: "中国农业银行", valid: true });
    expect((await api("/user/bank_name?card=4111111111111111", { token: user.token })).body.message).toEqual({ bank_name: null, valid: true });
  });

  it("names the saved card's bank in the language of each request, not the one it was saved in", async () => {
    const user = await makeUser();
    await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: ABC_CARD, bank_branch: "Haidian" } });
    const inLang = async (lang: string) => (await api("/user/center", { token: user.token, lang })).body.message.bank.bank_name;
    expect(await inLang("zh")).toBe("中国农业银行");
    expect(await inLang("hk")).toBe("中國農業銀行");
    expect(await inLang("kr")).toBe("중국농업은행");
    expect(await inLang("jp")).toBe("中国農業銀行");
    expect(await inLang("es")).toBe("Banco Agrícola de China");
    expect(await inLang("en")).toBe("Agricultural Bank of China");
  });

  it("needs the bank name when the card's bank is not in the table", async () => {
    const user = await makeUser();
    expect((await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: "4111111111111111" } })).body.code).toBe("missing_field");
    const r = await api("/user/cash_save", { token: user.token, body: { real_name: "Li Lei", bank_account: "4111111111111111", bank_name: "Example Bank" } });
    expect(r.body.message.bank_name).toBe("Example Bank");
  });

  it("refuses a real name with digits", async () => {
    const user = await makeUser();
    expect((await api("/user/cash_save", { token: user.token, body: { real_name: "Li 4", bank_account: ABC_CARD } })).body.code).toBe("name_no_digits");
  });
});

describe("the fund password", () => {
  it("is set the first time with the login password and stored hashed", async () => {
    const user = await makeUser();
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "246810" } })).body).toMatchObject({ code: "missing_field" });
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "246810", login_password: "wrong-pass1" } })).body.code).toBe("old_password_wrong");
    const r = await api("/user/fund_password", { token: user.token, body: { fund_password: "246810", re_fund_password: "246810", login_password: user.password } });
    expect(r.body.message).toEqual({ has_fund_password: true });
    const row = await env.DB.prepare("SELECT fund_password_hash h FROM users WHERE id = ?").bind(user.id).first<{ h: string }>();
    expect(row!.h).toMatch(/^scrypt\$/);
    expect(row!.h).not.toContain("246810");
    expect((await center(user)).has_fund_password).toBe(true);
  });

  it.each([["12345"], ["1234567"], ["abcdef"], ["12 345"]])("must be exactly 6 digits (refuses %s)", async (fund_password) => {
    const user = await makeUser();
    const r = await api("/user/fund_password", { token: user.token, body: { fund_password, login_password: user.password } });
    expect(r.body).toMatchObject({ code: "fund_password_rule", message: "The fund password must be exactly 6 digits" });
  });

  it("refuses a repeat that differs", async () => {
    const user = await makeUser();
    const r = await api("/user/fund_password", { token: user.token, body: { fund_password: "111222", re_fund_password: "111223", login_password: user.password } });
    expect(r.body.code).toBe("password_mismatch");
  });

  it("is changed with the old fund password or the login password", async () => {
    const user = await makeUser();
    await api("/user/fund_password", { token: user.token, body: { fund_password: "111111", login_password: user.password } });
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "222222" } })).body).toMatchObject({ code: "missing_field", message: "Missing parameter: old_fund_password" });
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "222222", old_fund_password: "999999" } })).body.code).toBe("fund_password_wrong");
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "222222", old_fund_password: "111111" } })).body.type).toBe("ok");
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "333333", login_password: user.password } })).body.type).toBe("ok");
    expect((await api("/user/fund_password", { token: user.token, body: { fund_password: "444444", old_fund_password: "222222" } })).body.code).toBe("fund_password_wrong");
  });
});

describe("the authenticator app", () => {
  it("enrols with a secret, an otpauth URI and a QR code, and is enabled by a correct code", async () => {
    const user = await makeUser();
    const r = await api("/user/totp/enrol", { token: user.token, method: "POST" });
    const { secret, uri, qrcode } = r.body.message;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(uri).toContain(`secret=${secret}`);
    const png = Uint8Array.from(atob(qrcode.split(",")[1]), (ch) => ch.charCodeAt(0));
    expect(imageSize(png).type).toBe("png");
    const stored = await env.DB.prepare("SELECT secret_enc, enabled FROM totp_secrets WHERE user_id = ?").bind(user.id).first<{ secret_enc: string; enabled: number }>();
    expect(stored!.secret_enc).not.toContain(secret);
    expect(stored!.enabled).toBe(0);
    expect((await api("/user/totp/confirm", { token: user.token, body: { code: "000000" } })).body.code).toBe("totp_wrong");
    expect((await api("/user/totp/confirm", { token: user.token, body: { code: currentCode(secret) } })).body.message).toEqual({ totp_enabled: true });
    expect((await center(user)).totp_enabled).toBe(true);
    expect((await api("/user/totp/enrol", { token: user.token, method: "POST" })).body.code).toBe("totp_enabled");
  });

  it("accepts a code once: the same code cannot disable it after enabling it", async () => {
    const user = await makeUser();
    const secret = (await api("/user/totp/enrol", { token: user.token, method: "POST" })).body.message.secret;
    const code = currentCode(secret);
    await api("/user/totp/confirm", { token: user.token, body: { code } });
    expect((await api("/user/totp/disable", { token: user.token, body: { code } })).body.code).toBe("totp_wrong");
    const next = currentCode(secret, Date.now() + 30_000);
    expect((await api("/user/totp/disable", { token: user.token, body: { code: next } })).body.message).toEqual({ totp_enabled: false });
    expect((await center(user)).totp_enabled).toBe(false);
    expect((await api("/user/totp/disable", { token: user.token, body: { code: next } })).body.code).toBe("totp_not_enabled");
  });

  it("refuses to confirm before enrolling and refuses codes that are not 6 digits", async () => {
    const user = await makeUser();
    expect((await api("/user/totp/confirm", { token: user.token, body: { code: "123456" } })).body.code).toBe("totp_not_enabled");
    expect((await api("/user/totp/confirm", { token: user.token, body: { code: "12ab56" } })).body.code).toBe("totp_wrong");
  });
});

describe("the personal centre", () => {
  it("shows a new user's profile with nothing verified or set", async () => {
    const user = await makeUser();
    expect(await center(user)).toMatchObject({
      id: user.id,
      account: user.account,
      review_status: 0,
      level: 0,
      pending_level: null,
      name: null,
      card_id: null,
      rejection_reason: null,
      bank: null,
      has_fund_password: false,
      totp_enabled: false,
    });
  });

  it("answers 999 without a session", async () => {
    expect((await api("/user/center")).body.type).toBe("999");
  });
});
