/**
 * The proven e-mail or phone (issue #29), shared by the banner every screen shows until the code
 * sent at sign-up is entered (features/auth ContactBanner) and the screens it gates (deposit,
 * withdrawal, API keys), which explain why and send the user to the banner's code field.
 */
import { atom } from "nanostores";
import { useStore } from "@nanostores/react";
import { $session, patchSession } from "./session.ts";

/** Whether the logged-in account's address is proven (true when logged out: nothing to show). */
export function useContactProven(): boolean {
  const s = useStore($session, { keys: ["token", "contact_verified"] });
  return s.token === "" || s.contact_verified !== "0";
}

export function markContactProven(): void {
  patchSession({ contact_verified: "1" });
}

export function markContactUnproven(): void {
  if ($session.get().token !== "") patchSession({ contact_verified: "0" });
}

/** Bumped to ask the banner to scroll into view and focus its code field. */
export const $contactFocus = atom(0);

/** Takes the user to the banner's code field (a gated screen's "Enter the code"). */
export function focusContactBanner(): void {
  $contactFocus.set($contactFocus.get() + 1);
}
