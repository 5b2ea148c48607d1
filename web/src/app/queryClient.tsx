/**
 * The one QueryClient and its provider. Defaults: retry only failures that never reached the
 * server (lib/query.ts `shouldRetry`), no refetch on window focus (a phone switching apps would
 * refetch every open screen at once), a fetch even when the browser reports offline (the screen
 * shows the network error, as every call does), and stale at once unless a query says otherwise
 * (each feature's api.ts sets staleTime and refetchInterval per query).
 *
 * gcTime 0: an answer is kept while a screen shows it, not after. Balances, records and review
 * states also change elsewhere (an operator, a fill, another device), so a screen opened again
 * loads afresh behind its skeleton, as it always has, rather than showing an old balance first.
 * Published content (home, quotations, articles, fee table) opts into a cache (lib/query.ts
 * `cachedFor`).
 *
 * A different login or language makes every cached answer wrong (balances are per user, server
 * texts per language), so either change resets the cache and refetches what is on screen.
 */
import { useEffect, type ReactNode } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { $locale } from "../i18n/index.ts";
import { retryDelay, shouldRetry } from "../lib/query.ts";
import { $session } from "../lib/session.ts";

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: shouldRetry,
      retryDelay,
      refetchOnWindowFocus: false,
      networkMode: "always",
      staleTime: 0,
      gcTime: 0,
    },
    mutations: {
      retry: false,
      networkMode: "always",
    },
  },
});

function useResetOnChange() {
  useEffect(() => {
    let token = $session.get().token;
    const offSession = $session.listen((s) => {
      if (s.token === token) return;
      token = s.token;
      void queryClient.resetQueries();
    });
    const offLocale = $locale.listen(() => void queryClient.resetQueries());
    return () => {
      offSession();
      offLocale();
    };
  }, []);
}

export function QueryProvider({ children }: { children: ReactNode }) {
  useResetOnChange();
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
