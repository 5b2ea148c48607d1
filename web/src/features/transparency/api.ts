/**
 * Transparency's server state: the public summary (GET /api/transparency, issue #20 §3, cached a
 * minute by the server) and proof of liabilities (issue #20 §2): the latest published root and totals (GET
 * /api/transparency/liabilities, public) and one's own proof of inclusion (GET
 * /api/transparency/liabilities/proof, session). The proof is verified here, in the browser, by
 * the same code the server's tests and the offline script use (schemas/liabilities.ts).
 */
import { useQuery } from "@tanstack/react-query";
import { verifyProof, type LiabilityProof, type ProofResult } from "../../../../schemas/liabilities.ts";
import type { Liabilities, Transparency } from "../../../../schemas/transparency.ts";
import { call, client } from "../../lib/api.ts";
import { cachedFor, useScreenQuery } from "../../lib/query.ts";

export type { Liabilities, MiningPayoutTotal, Transparency } from "../../../../schemas/transparency.ts";
export type { LiabilityProof, ProofResult } from "../../../../schemas/liabilities.ts";
export { proofBalances } from "../../../../schemas/liabilities.ts";

const KEY = "transparency";
/** A snapshot is published once a day: a minute is fresh enough. */
const STALE_MS = 60_000;

export const fetchSummary = (signal?: AbortSignal): Promise<Transparency> => call((o) => client.api.transparency.$get({}, o), { notify: false, signal });
export const fetchLiabilities = (signal?: AbortSignal) => call((o) => client.api.transparency.liabilities.$get({}, o), { notify: false, signal });
export const fetchProof = (signal?: AbortSignal) => call((o) => client.api.transparency.liabilities.proof.$get({}, o), { notify: false, signal });

/** The server caches the summary for a minute: asking more often shows nothing new. */
export const useSummary = () => useScreenQuery({ queryKey: [KEY, "summary"], queryFn: ({ signal }) => fetchSummary(signal), ...cachedFor(STALE_MS) });

export const useLiabilities = () => useScreenQuery({ queryKey: [KEY, "liabilities"], queryFn: ({ signal }) => fetchLiabilities(signal), ...cachedFor(STALE_MS) });

export const useProof = (enabled: boolean) =>
  useScreenQuery({ queryKey: [KEY, "proof"], queryFn: ({ signal }) => fetchProof(signal), enabled, ...cachedFor(STALE_MS) });

/** The browser's own verdict on the proof for the logged-in account, against the published root and totals. */
export function useVerification(proof: LiabilityProof | undefined, published: Liabilities | undefined, account: string) {
  return useQuery<ProofResult>({
    queryKey: [KEY, "verify", proof?.snapshot_id, proof?.nonce, proof?.leaves, account, published?.id, published?.root_hash],
    queryFn: () => verifyProof(proof, account, published),
    // The account arrives with the user's info: until then there is nothing to check the binding against.
    enabled: proof !== undefined && published !== undefined && account.trim() !== "",
    staleTime: Infinity,
  });
}

/** proof.json as the user downloads it (and `npm run verify-liabilities` reads it). */
export function proofFile(proof: LiabilityProof): Blob {
  return new Blob([JSON.stringify(proof, null, 2) + "\n"], { type: "application/json" });
}
