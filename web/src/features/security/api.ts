/** Account security calls (spec §7 update-password; fund password, authenticator, address book). */
import { api } from "../../lib/api.ts";

export interface SecurityState {
  id: number;
  account: string;
  has_fund_password: boolean;
  totp_enabled: boolean;
}
export const fetchSecurity = (signal?: AbortSignal) => api.get<SecurityState>("/api/user/center", { notify: false, signal });

export const changePassword = (body: { oldpwd: string; newpwd: string; repwd: string }) => api.post<unknown>("/api/new/users/update-password", body);

export const setFundPassword = (body: { fund_password: string; re_fund_password: string; login_password?: string; old_fund_password?: string }) =>
  api.post<{ has_fund_password: boolean }>("/api/user/fund_password", body);

export const totpEnrol = () => api.post<{ secret: string; uri: string; qrcode: string }>("/api/user/totp/enrol");
export const totpConfirm = (code: string) => api.post<{ totp_enabled: boolean }>("/api/user/totp/confirm", { code });
export const totpDisable = (code: string) => api.post<{ totp_enabled: boolean }>("/api/user/totp/disable", { code });

export interface SavedAddress {
  id: number;
  currency_id: number;
  currency_name: string | null;
  network: number;
  network_name: string;
  address: string;
  label: string;
  memo: string;
  created_at: string;
}
export const fetchAddresses = (signal?: AbortSignal) => api.get<SavedAddress[]>("/api/user/addresses", { notify: false, signal });
export const addAddress = (body: { currency: number; address: string; label?: string; memo?: string; type?: number }) =>
  api.post<{ id: number }>("/api/user/addresses", body);
export const deleteAddress = (id: number) => api.post<{ deleted: boolean }>("/api/user/addresses/delete", { id });

/** The public fee table: which currencies can be withdrawn, and on which networks. */
export interface FeeRow {
  currency_id: number;
  currency: string;
  network: number;
  network_name: string;
}
export const fetchFeeTable = (signal?: AbortSignal) => api.get<FeeRow[]>("/api/wallet/fees", { notify: false, signal });
