/**
 * One SDK client per provider configuration (building an `Anthropic`/`OpenAI` client eagerly
 * builds its whole resource tree, about 2 ms, and a tool turn makes two model calls). Clients hold no
 * per-call state here: each call's abort signal and stream watchdog travel with the request (see
 * `StreamWatchdog.fetchOptions`), so sharing one across calls and runs changes no behaviour.
 *
 * Keyed by the caller's fetch function (by identity, weakly) and by the rest of the configuration as
 * JSON. A few configurations at most are live at once; the oldest is dropped past {@link MAX_PER_FETCH}
 * so rotated keys or per-workspace base URLs cannot grow the cache without bound.
 */
const MAX_PER_FETCH = 32;
const DEFAULT_FETCH: object = {};
const clients = new WeakMap<object, Map<string, object>>();

export function cachedSdkClient<T extends object>(kind: string, config: Record<string, unknown>, customFetch: typeof fetch | undefined, build: () => T): T {
  const owner: object = customFetch ?? DEFAULT_FETCH;
  let byConfig = clients.get(owner);
  if (!byConfig) {
    byConfig = new Map();
    clients.set(owner, byConfig);
  }
  const key = `${kind}\u0000${JSON.stringify(config)}`;
  const cached = byConfig.get(key);
  if (cached) return cached as T;
  const client = build();
  byConfig.set(key, client);
  if (byConfig.size > MAX_PER_FETCH) byConfig.delete(byConfig.keys().next().value!);
  return client;
}
