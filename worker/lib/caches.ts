/**
 * What this isolate remembers of D1 between requests (settings, pairs, currencies, the last index,
 * the maintenance switch, the dev clock's offset), so that it can all be forgotten at once: the
 * API tests reuse one runtime across files and give each file a fresh database
 * (tests/api/setup.ts), which must find the isolate as a fresh one would.
 */
const forgetters: (() => void)[] = [];

/** A Map this isolate keeps across requests, emptied by `forgetCaches`. */
export function isolateMap<K, V>(): Map<K, V> {
  const map = new Map<K, V>();
  forgetters.push(() => map.clear());
  return map;
}

/** Runs `forget` on `forgetCaches` (a module-level value that is not a Map). */
export function onForget(forget: () => void): void {
  forgetters.push(forget);
}

/** Forgets everything registered above. */
export function forgetCaches(): void {
  for (const forget of forgetters) forget();
}
