/**
 * Durable Object ids by name, computed once per isolate. `idFromName` hashes the name on every
 * call; the objects-mode order path names several objects a request (the trader's, the pair, and
 * the receivers of the pair's legs), so each isolate keeps the ids it has made. An id depends only
 * on the namespace and the name, so a kept one is the same id `idFromName` would make again.
 */
const kept = new WeakMap<DurableObjectNamespace, Map<string, DurableObjectId>>();
/** Names kept per namespace at most (then the map starts again: a bound, not an eviction policy). */
const MAX_KEPT = 10_000;

export function objectId(ns: DurableObjectNamespace, name: string): DurableObjectId {
  let ids = kept.get(ns);
  if (!ids) kept.set(ns, (ids = new Map()));
  let id = ids.get(name);
  if (!id) {
    if (ids.size >= MAX_KEPT) ids.clear();
    id = ns.idFromName(name);
    ids.set(name, id);
  }
  return id;
}
