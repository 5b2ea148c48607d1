// The anti-phishing code (issue #29): set with the second factor, 4-20 letters or digits, and from
// then on shown in every e-mail and SMS the exchange sends the account (read from the dev outbox).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deliver } from "../../worker/lib/delivery.ts";
import { api, makeUser, type TestUser } from "./helpers.ts";
import { totp, withTotp } from "./guard-fixtures.ts";

interface Sent {
  channel: string;
  subject: string;
  body: string;
  code: string | null;
}

async function outbox(account: string): Promise<Sent[]> {
  const { results } = await env.DB.prepare("SELECT channel, subject, body, code FROM dev_outbox WHERE recipient = ? ORDER BY id").bind(account).all<Sent>();
  return results;
}

/** Every kind of message the exchange sends an account, asked for the way a user asks for it. */
async function sendEveryKind(user: TestUser) {
  const r = await api("/sms_mail", { body: { user_string: user.account, type: "forget" } });
  expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
}

describe("the anti-phishing code", () => {
  it("appears in every e-mail sent after it is set, and in none before", async () => {
    const user = await withTotp(await makeUser());
    await sendEveryKind(user);
    const before = (await outbox(user.account)).length;
    const r = await api("/security/anti_phishing", { token: user.token, body: { code: "Blue42sky", totp_code: await totp(user) } });
    expect(r.body.message.anti_phishing_code).toBe("Blue42sky");
    // The resend wait of the reset code is a minute: a new message needs a new minute.
    await env.DB.prepare("UPDATE rate_limits SET window_start = window_start - 61000 WHERE key = ?").bind(`forget-send:${user.account}`).run();
    await sendEveryKind(user);

    const sent = await outbox(user.account);
    expect(sent.length).toBeGreaterThan(before);
    for (const m of sent.slice(0, before)) expect(m.body).not.toContain("Blue42sky");
    for (const m of sent.slice(before)) {
      expect(m.channel).toBe("email");
      expect(m.subject.startsWith("[Blue42sky] ")).toBe(true);
      expect(m.body.split("\n")[0]).toBe("Anti-phishing code: Blue42sky");
      // The message still carries what it was sent for.
      expect(m.body).toContain(m.code!);
    }
  });

  it("appears in an SMS to a phone account (every message leaves through the one delivery function)", async () => {
    const user = await withTotp(await makeUser({ account: `86139${String(Date.now()).slice(-8)}` }));
    await api("/security/anti_phishing", { token: user.token, body: { code: "7seas", totp_code: await totp(user) } });
    await deliver(env, { channel: "sms", recipient: user.account, subject: "Code", body: "Your code is 123456", code: "123456" });
    const [m] = await outbox(user.account);
    expect(m).toMatchObject({ channel: "sms", code: "123456" });
    expect(m!.body).toBe("Anti-phishing code: 7seas\n\nYour code is 123456");
  });

  it("is 4 to 20 letters or digits, and a refused code changes nothing", async () => {
    const user = await withTotp(await makeUser());
    for (const code of ["abc", "a".repeat(21), "blue-42", "blue 42", "蓝色代码", "", 1234]) {
      const r = await api("/security/anti_phishing", { token: user.token, body: { code, totp_code: await totp(user) } });
      expect(r.status, JSON.stringify(code)).toBe(400);
      expect(r.body.code).toBe("anti_phishing_format");
    }
    expect((await api("/security/settings", { token: user.token })).body.message.anti_phishing_code).toBeNull();
  });

  it("is confirmed with the second factor, which an account must have first", async () => {
    const plain = await makeUser();
    expect((await api("/security/anti_phishing", { token: plain.token, body: { code: "Blue42" } })).body.code).toBe("second_factor_required");
    const user = await withTotp(await makeUser());
    expect((await api("/security/anti_phishing", { token: user.token, body: { code: "Blue42" } })).body.code).toBe("totp_required");
    expect((await api("/security/anti_phishing", { token: user.token, body: { code: "Blue42", totp_code: "000000" } })).body.code).toBe("totp_wrong");
    expect((await api("/security/settings", { token: user.token })).body.message.anti_phishing_code).toBeNull();
    const notices = await env.DB.prepare("SELECT kind FROM notifications WHERE user_id = ?").bind(user.id).all<{ kind: string }>();
    expect(notices.results).toEqual([]);
    await api("/security/anti_phishing", { token: user.token, body: { code: "Blue42", totp_code: await totp(user) } });
    const after = await env.DB.prepare("SELECT kind FROM notifications WHERE user_id = ?").bind(user.id).all<{ kind: string }>();
    expect(after.results).toEqual([{ kind: "security_anti_phishing" }]);
  });
});
