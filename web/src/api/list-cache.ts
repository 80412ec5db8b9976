/**
 * The part of TanStack Query's QueryClient used here, stated structurally so this file stays free of
 * React types (test/web type-checks it under the server's compiler settings).
 */
export interface ListCacheClient {
  setQueryData<T>(queryKey: readonly unknown[], updater: (old: T | undefined) => T | undefined): unknown;
  isFetching(filters: { queryKey: readonly unknown[]; exact: boolean }): number;
  invalidateQueries(filters: { queryKey: readonly unknown[]; exact: boolean }): Promise<void>;
}

/** Replaces the entry with the item's id, or appends the item. */
function upsertById<T extends { id: string }>(list: T[] | undefined, item: T): T[] | undefined {
  if (!list) return list;
  const index = list.findIndex((entry) => entry.id === item.id);
  if (index < 0) return [...list, item];
  const next = list.slice();
  next[index] = item;
  return next;
}

/**
 * Puts an item an event carries into a cached list. If that list is being fetched at this moment, the
 * fetch may have read the server before the item existed and would overwrite it when it lands (a
 * finished turn invalidates its messages just before its answer's `message.created` arrives): that
 * fetch is replaced by a new one, which sees the item, because events are published after commit.
 */
export function upsertIntoList<K extends string, T extends { id: string }>(client: ListCacheClient, queryKey: readonly unknown[], field: K, item: T): void {
  client.setQueryData<Record<K, T[]>>(queryKey, (old) => (old ? ({ ...old, [field]: upsertById(old[field], item) ?? [] } as Record<K, T[]>) : old));
  if (client.isFetching({ queryKey, exact: true }) > 0) void client.invalidateQueries({ queryKey, exact: true });
}
