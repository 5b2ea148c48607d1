/**
 * Account area (spec §2 Personal, Bank, Verification, security labels; §7): identity verification
 * in three levels, the personal centre, the receiving bank card, the fund password, the
 * authenticator app and the withdrawal address book. Everything is scoped to the session's user.
 */
import { Hono } from "hono";
import {
  bankCardSchema,
  bankCardViewSchema,
  bankLookupSchema,
  bankNameQuerySchema,
  fundPasswordSchema,
  fundPasswordSetSchema,
  identityFormSchema,
  identitySubmittedSchema,
  totpCodeSchema,
  totpEnrolmentSchema,
  totpStateSchema,
  userCenterSchema,
} from "../../schemas/kyc.ts";
import { addressBookAddSchema, addressListQuerySchema, idBodySchema } from "../../schemas/wallet.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, ok } from "../lib/respond.ts";
import { addressAddedSchema, addressDeletedSchema, savedAddressListSchema } from "../../schemas/address-book.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { addAddress, deleteAddress, listAddresses } from "../domain/account/address-book.ts";
import { bankLookup } from "../domain/account/banks.ts";
import { saveBankCard } from "../domain/account/bank-cards.ts";
import { userCenter } from "../domain/account/profile.ts";
import { confirmTotp, disableTotp, enrolTotp, setFundPassword } from "../domain/account/security.ts";
import { submitIdentity } from "../domain/kyc/submissions.ts";

const MINUTE = 60_000;

export const accountRoutes = new Hono<AppEnv>()
  // ── Identity verification ───────────────────────────────────────────────────────────────────
  .post("/user/real_name", requireUser, jsonBody(identityFormSchema), answers(identitySubmittedSchema, { summary: "Submit identity verification (levels 1-3) for review", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `kyc:${user.id}`, 10, 60 * MINUTE);
    return ok(c, await submitIdentity(c.env, user.id, c.req.valid("json")));
  })
  .get("/user/center", requireUser, answers(userCenterSchema, { summary: "Profile, identity state and security flags", auth: true }), async (c) => ok(c, await userCenter(c.env.DB, c.get("user").id, c.get("locale"))))

  // ── Receiving bank card ─────────────────────────────────────────────────────────────────────
  .get("/user/bank_name", requireUser, query(bankNameQuerySchema), answers(bankLookupSchema, { summary: "The bank of a card number (6+ digits)", auth: true }), async (c) => {
    return ok(c, bankLookup(c.req.valid("query").card, c.get("locale")));
  })
  .post("/user/cash_save", requireUser, jsonBody(bankCardSchema), answers(bankCardViewSchema, { summary: "Save the receiving bank card", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `bank:${uid}`, 20, 60 * MINUTE);
    return ok(c, await saveBankCard(c.env.DB, uid, c.req.valid("json"), c.get("locale")));
  })

  // ── Fund password ───────────────────────────────────────────────────────────────────────────
  .post("/user/fund_password", requireUser, jsonBody(fundPasswordSchema), answers(fundPasswordSetSchema, { summary: "Set or change the 6-digit fund password", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `fundpw-set:${uid}`, 10, 10 * MINUTE);
    await setFundPassword(c.env, uid, c.req.valid("json"));
    return ok(c, { has_fund_password: true as const });
  })

  // ── Authenticator app (TOTP) ────────────────────────────────────────────────────────────────
  .post("/user/totp/enrol", requireUser, answers(totpEnrolmentSchema, { summary: "Start authenticator enrolment", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `totp-enrol:${user.id}`, 10, 10 * MINUTE);
    return ok(c, await enrolTotp(c.env, user));
  })
  .post("/user/totp/confirm", requireUser, jsonBody(totpCodeSchema), answers(totpStateSchema, { summary: "Confirm the authenticator with a code", auth: true }), async (c) => {
    const uid = c.get("user").id;
    await rateLimit(c.env.DB, `totp-confirm:${uid}`, 10, 10 * MINUTE);
    await confirmTotp(c.env, uid, c.req.valid("json").code);
    return ok(c, { totp_enabled: true });
  })
  .post("/user/totp/disable", requireUser, jsonBody(totpCodeSchema), answers(totpStateSchema, { summary: "Turn the authenticator off with a code", auth: true }), async (c) => {
    await disableTotp(c.env, c.get("user").id, c.req.valid("json").code);
    return ok(c, { totp_enabled: false });
  })

  // ── Withdrawal address book ─────────────────────────────────────────────────────────────────
  .get("/user/addresses", requireUser, query(addressListQuerySchema), answers(savedAddressListSchema, { summary: "One's withdrawal address book", auth: true }), async (c) =>
    ok(c, await listAddresses(c.env.DB, c.get("user").id, c.req.valid("query").currency)),
  )
  .post("/user/addresses", requireUser, jsonBody(addressBookAddSchema), answers(addressAddedSchema, { summary: "Add an address to the book", auth: true }), async (c) =>
    ok(c, await addAddress(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .post("/user/addresses/delete", requireUser, jsonBody(idBodySchema), answers(addressDeletedSchema, { summary: "Delete an address of one's book", auth: true }), async (c) => {
    await deleteAddress(c.env, c.get("user").id, c.req.valid("json").id);
    return ok(c, { deleted: true as const });
  });
