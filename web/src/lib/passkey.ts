/**
 * Passkeys in the browser (issue #29) with @simplewebauthn/browser: the server's WebAuthn options
 * go to `navigator.credentials`, and its answer goes back as JSON. Three ceremonies: adding a
 * passkey (security screen), confirming a withdrawal or a security change with one, and signing in.
 */
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/browser";
import { m } from "../i18n/index.ts";
import { call, client } from "./api.ts";

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

/** Whether this browser can use passkeys at all. */
export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** A ceremony the user cancelled or the browser refused, with a message in the app's language. */
export class PasskeyCancelled extends Error {
  constructor() {
    super(m.sec_passkey_cancelled());
    this.name = "PasskeyCancelled";
  }
}

async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // NotAllowedError (cancelled, timed out), InvalidStateError (already registered), ...
    if (err instanceof Error && err.name !== "ApiFailure") throw new PasskeyCancelled();
    throw err;
  }
}

/** Creates a passkey on this device for the signed-in user: the answer to send with its name. */
export async function createPasskey(): Promise<RegistrationResponseJSON> {
  const options = await call((o) => client.api.security.passkeys.options.$post({}, o));
  return ceremony(() => startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON }));
}

/** Answers a confirmation challenge with one of the user's passkeys (the `passkey` field of a request). */
export async function confirmWithPasskey(): Promise<AuthenticationResponseJSON> {
  const options = await call((o) => client.api.security.passkeys.confirm.options.$post({}, o));
  return ceremony(() => startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON }));
}

/** Signs in with a passkey the browser offers: the session answer of the server. */
export async function signInWithPasskey() {
  const options = await call((o) => client.api.user.login.passkey.options.$post({}, o));
  const response = await ceremony(() => startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON }));
  return call((o) => client.api.user.login.passkey.$post({ json: { response } }, o));
}
