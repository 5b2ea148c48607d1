/** Account security calls (spec §7 update-password; fund password, authenticator, address book). */
import type { SavedAddress } from "../../../../schemas/address-book.ts";
import type { UserCenter } from "../../../../schemas/kyc.ts";
import type { FeeRow } from "../../../../schemas/withdrawal.ts";
import { call, client } from "../../lib/api.ts";
import type { SecondFactorAnswer } from "../../components/SecondFactors.tsx";
import type { RegistrationResponseJSON } from "../../lib/passkey.ts";
import { cachedFor, sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { FeeRow, SavedAddress };
export type SecurityState = UserCenter;

export const fetchSecurity = (signal?: AbortSignal) => call((o) => client.api.user.center.$get({}, o), { notify: false, signal });

export const changePassword = (body: { oldpwd: string; newpwd: string; repwd: string }) =>
  call((o) => client.api.new.users["update-password"].$post({ json: body }, o));

export const setFundPassword = (body: { fund_password: string; re_fund_password: string; login_password?: string; old_fund_password?: string }) =>
  call((o) => client.api.user.fund_password.$post({ json: body }, o));

export const totpEnrol = () => call((o) => client.api.user.totp.enrol.$post({}, o));
export const totpConfirm = (code: string) => call((o) => client.api.user.totp.confirm.$post({ json: { code } }, o));
export const totpDisable = (code: string) => call((o) => client.api.user.totp.disable.$post({ json: { code } }, o));

export const fetchAddresses = (signal?: AbortSignal) => call((o) => client.api.user.addresses.$get({ query: {} }, o), { notify: false, signal });
/** `type` is a network of the server's fee table (0 ERC20, 1 TRC20); the server checks it. */
export const addAddress = (body: { currency: number; address: string; label?: string; memo?: string; type?: number }) =>
  call((o) => client.api.user.addresses.$post({ json: { ...body, type: body.type as 0 | 1 | undefined } }, o));
export const deleteAddress = (id: number) => call((o) => client.api.user.addresses.delete.$post({ json: { id } }, o));

/** The public fee table: which currencies can be withdrawn, and on which networks. */
export const fetchFeeTable = (signal?: AbortSignal) => call((o) => client.api.wallet.fees.$get({}, o), { notify: false, signal });

/** The same user centre answer the other screens read (review status, security flags). */
export const useSecurity = () => useScreenQuery({ queryKey: sharedKeys.center, queryFn: ({ signal }) => fetchSecurity(signal) });
/** Every saved address; the withdrawal screen reads them per currency under the same root. */
export const useAddresses = () => useScreenQuery({ queryKey: [...sharedKeys.addresses], queryFn: ({ signal }) => fetchAddresses(signal) });
export const useFeeTable = () => useScreenQuery({ queryKey: ["fees"], queryFn: ({ signal }) => fetchFeeTable(signal), ...cachedFor(60_000) });

export const useAddAddress = () => useCallMutation(addAddress, [sharedKeys.addresses]);
export const useDeleteAddress = () => useCallMutation(deleteAddress, [sharedKeys.addresses]);

// ── Account guards (issue #29): passkeys, anti-phishing code, whitelist, settings lock ──────────

export const guardKeys = { settings: ["security-settings"] as const, passkeys: ["passkeys"] as const };

export const fetchGuards = (signal?: AbortSignal) => call((o) => client.api.security.settings.$get({}, o), { notify: false, signal });
export const fetchPasskeys = (signal?: AbortSignal) => call((o) => client.api.security.passkeys.$get({}, o), { notify: false, signal });
export const addPasskey = (body: { name: string; response: RegistrationResponseJSON } & SecondFactorAnswer) => call((o) => client.api.security.passkeys.$post({ json: body }, o));
export const removePasskey = (id: number, factor: SecondFactorAnswer) => call((o) => client.api.security.passkeys[":id"].delete.$post({ param: { id: String(id) }, json: factor }, o));
export const setAntiPhishing = (code: string, factor: SecondFactorAnswer) => call((o) => client.api.security.anti_phishing.$post({ json: { code, ...factor } }, o));
export const setWhitelist = (on: boolean, factor: SecondFactorAnswer) => call((o) => client.api.security.whitelist.$post({ json: { on, ...factor } }, o));
export const lockSettings = (days: number, factor: SecondFactorAnswer) => call((o) => client.api.security.lock.$post({ json: { days, ...factor } }, o));

/** The account's guards (second factors, anti-phishing code, whitelist, lock). */
export const useGuards = () => useScreenQuery({ queryKey: [...guardKeys.settings], queryFn: ({ signal }) => fetchGuards(signal) });
export const usePasskeys = () => useScreenQuery({ queryKey: [...guardKeys.passkeys], queryFn: ({ signal }) => fetchPasskeys(signal) });
export const useAddPasskey = () => useCallMutation(addPasskey, [guardKeys.passkeys, guardKeys.settings]);
export const useRemovePasskey = () => useCallMutation(removePasskey, [guardKeys.passkeys, guardKeys.settings]);
export const useSetAntiPhishing = () => useCallMutation(setAntiPhishing, [guardKeys.settings]);
export const useSetWhitelist = () => useCallMutation(setWhitelist, [guardKeys.settings]);
export const useLockSettings = () => useCallMutation(lockSettings, [guardKeys.settings]);
