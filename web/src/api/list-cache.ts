// '.js' because test/web type-checks this file under the server's NodeNext resolution.
import { writeFresherIntoList, type Stamped } from './fresher-write.js';

/**
 * The part of TanStack Query's QueryClient used here, stated structurally so this file stays free of
 * React types (test/web type-checks it under the server's compiler settings).
 */
export interface ListCacheClient {
  setQueryData<T>(queryKey: readonly unknown[], updater: (old: T | undefined) => T | undefined): unknown;
  isFetching(filters: { queryKey: readonly unknown[]; exact: boolean }): number;
  invalidateQueries(filters: { queryKey: readonly unknown[]; exact: boolean }): Promise<void>;
}

/**
 * Puts an item an event carries into a cached list. If that list is being fetched at this moment, the
 * fetch may have read the server before the item existed and would overwrite it when it lands (a
 * finished turn invalidates its messages just before its answer's `message.created` arrives): that
 * fetch is replaced by a new one, which sees the item, because events are published after commit. An
 * item older than the one listed (its `updatedAt`) is not written back over it (fresher-write.ts).
 */
export function upsertIntoList<K extends string, T extends Stamped & { id: string }>(client: ListCacheClient, queryKey: readonly unknown[], field: K, item: T): void {
  writeFresherIntoList<K, T>(client, queryKey, field, item, { append: true });
  if (client.isFetching({ queryKey, exact: true }) > 0) void client.invalidateQueries({ queryKey, exact: true });
}
