/**
 * Writing an entity the server sent into the query caches without ever putting an older state back.
 *
 * A mutation's answer and the live events travel different roads: the answer of a PATCH can land after
 * the `space.updated` of a change made a moment later (another tab, the server naming the space), and
 * writing it then would show the earlier name again, with no later event to correct it. Every entity
 * written from an answer (and from an event) carries the server's `updatedAt`, stamped on every change;
 * a write whose `updatedAt` is older than the cached one is dropped. Equal stamps are written: the same
 * change seen twice, or a rollback to the state the cache showed before an optimistic write.
 *
 * Stated structurally (no React types) so test/web type-checks it under the server's compiler settings
 * (hence the '.js' in its import).
 */
import { keys } from './keys.js';

export interface FresherWriteClient {
  setQueryData<T>(queryKey: readonly unknown[], updater: (old: T | undefined) => T | undefined): unknown;
}

/** Anything the server stamps when it changes. A null stamp (never stored) is never thought newer or older. */
export interface Stamped {
  updatedAt?: string | null;
}

function stampOf(entity: Stamped | undefined): number {
  return entity?.updatedAt ? Date.parse(entity.updatedAt) : Number.NaN;
}

/** True when `incoming` is older than `cached`: writing it would undo a change the cache already shows. */
export function isOlderThan(incoming: Stamped, cached: Stamped | undefined): boolean {
  const incomingStamp = stampOf(incoming);
  const cachedStamp = stampOf(cached);
  return !Number.isNaN(incomingStamp) && !Number.isNaN(cachedStamp) && incomingStamp < cachedStamp;
}

/** The state to keep: `incoming`, unless the cache already holds a newer one. */
export function fresherOf<T extends Stamped>(cached: T | undefined, incoming: T): T {
  return cached !== undefined && isOlderThan(incoming, cached) ? cached : incoming;
}

/** Writes one entity's own cache entry (`keys.space(ws, id)`), unless the cache holds a newer state of it. */
export function writeFresherEntity<T extends Stamped>(client: FresherWriteClient, queryKey: readonly unknown[], entity: T): void {
  client.setQueryData<T>(queryKey, (old) => fresherOf(old, entity));
}

/**
 * Replaces the entry with the entity's id in a cached list `{ [field]: T[] }` (or appends it when `append`
 * and it is not there), unless the list holds a newer state of it. A list not fetched yet stays unfetched.
 */
export function writeFresherIntoList<K extends string, T extends Stamped & { id: string }>(
  client: FresherWriteClient,
  queryKey: readonly unknown[],
  field: K,
  entity: T,
  { append }: { append: boolean },
): void {
  client.setQueryData<Record<K, T[]>>(queryKey, (old) => {
    if (!old) return old;
    const list = old[field] ?? [];
    const index = list.findIndex((entry) => entry.id === entity.id);
    if (index < 0) return append ? ({ ...old, [field]: [...list, entity] } as Record<K, T[]>) : old;
    const kept = fresherOf(list[index], entity);
    if (kept === list[index]) return old;
    const next = list.slice();
    next[index] = kept;
    return { ...old, [field]: next } as Record<K, T[]>;
  });
}

/**
 * A creation's answer into a cached list: appended when absent. An entry already listed came from the
 * creation's own event or a later one, so it is at least as new and is kept (runs and messages carry
 * no stamp to compare).
 */
export function addCreatedToList<K extends string, T extends { id: string }>(client: FresherWriteClient, queryKey: readonly unknown[], field: K, entity: T): void {
  client.setQueryData<Record<K, T[]>>(queryKey, (old) => {
    if (!old) return old;
    const list = old[field] ?? [];
    return list.some((entry) => entry.id === entity.id) ? old : ({ ...old, [field]: [...list, entity] } as Record<K, T[]>);
  });
}

/** A changed space as the server sent it, into its own entry and the spaces list (the sidebar, the picker's space). */
export function writeFresherSpace<T extends Stamped & { id: string }>(client: FresherWriteClient, ws: string, space: T): void {
  writeFresherEntity(client, keys.space(ws, space.id), space);
  writeFresherIntoList(client, keys.spaces(ws), 'spaces', space, { append: false });
}

/** A changed conversation as the server sent it, into its own entry and its space's list. */
export function writeFresherConversation<T extends Stamped & { id: string; spaceId: string }>(client: FresherWriteClient, ws: string, conversation: T): void {
  writeFresherEntity(client, keys.conversation(ws, conversation.id), conversation);
  writeFresherIntoList(client, keys.conversations(ws, conversation.spaceId), 'conversations', conversation, { append: false });
}
