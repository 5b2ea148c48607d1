/** Small helpers of the spot screens (numbers are shown with lib/format.ts). */

/** Random client order id: lets the server recognise a retried submit (replay returns the first result). */
export function newClientOrderId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
