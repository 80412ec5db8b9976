import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from './workspace-schema.js';

/**
 * Reads of the tables a run's preparation needs (agent, settings, space, its repositories, MCP
 * servers, installed skills: `CONFIG_TABLES`), kept between runs (NF-SCALE: on PostgreSQL each read
 * is a round trip, and they change only when someone edits them).
 *
 * Why it is correct across processes: every write to those tables bumps `config_version.version`
 * by a trigger, in the write's own transaction (migration 0039), whichever process or code path
 * writes. A run's preparation first reads the version (its pin), then reads through this cache: a
 * value kept under the same version was read after that version was committed, and no write has
 * committed since (it would have bumped the version), so it is what the database would answer now.
 * A value read after the pin is kept under the pin's version: it may be newer than the pin, never
 * older. A change committed before a run's pin is therefore seen by that run, on any process.
 *
 * Only a read given a pin is served from the cache; every other read (API requests, a run's tool
 * calls) goes to the database as before. The pin is passed explicitly, not through an
 * AsyncLocalStorage: enabling one makes every promise of the process pay for context tracking.
 */
export interface ConfigPin {
  db: Kysely<WorkspaceSchema>;
  version: number;
}

/** Kept reads per database handle (a reopened store starts empty), by read key. */
const keptByDatabase = new WeakMap<object, Map<string, { version: number; value: unknown }>>();

/** Reads kept per database: enough for every agent, space and skill set of a busy workspace. */
const KEPT_READS = 2_000;

/** Reads the current version of the configuration tables: one statement, at the start of a run's preparation. */
export async function pinConfigVersion(db: Kysely<WorkspaceSchema>): Promise<ConfigPin> {
  const row = await db.selectFrom('config_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
  return pinConfigVersionAt(db, Number(row.version));
}

/**
 * A pin on a version read by another statement of `db` (a queued run's start reads it beside the
 * run row: one round trip less). As correct as `pinConfigVersion`: the version is what `db` read
 * committed when that statement ran, every pinned read comes after it, so a change committed before
 * it is seen and a kept value is never older than the version it is kept under.
 */
export function pinConfigVersionAt(db: Kysely<WorkspaceSchema>, version: number): ConfigPin {
  return { db, version };
}

/**
 * `load()`'s answer, kept under `pin`'s version when a pin on the same database is given; else
 * `load()` itself. Callers get their own copy (some adjust what they read).
 */
export async function pinnedRead<T>(pin: ConfigPin | undefined, db: Kysely<WorkspaceSchema>, key: string, load: () => Promise<T>): Promise<T> {
  if (!pin || pin.db !== db) return load();
  let kept = keptByDatabase.get(db);
  if (!kept) keptByDatabase.set(db, (kept = new Map()));
  const hit = kept.get(key);
  if (hit && hit.version === pin.version) return structuredClone(hit.value) as T;
  const value = await load();
  kept.delete(key);
  kept.set(key, { version: pin.version, value: structuredClone(value) });
  if (kept.size > KEPT_READS) kept.delete(kept.keys().next().value!);
  return value;
}
