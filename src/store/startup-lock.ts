import pg from 'pg';
import { guardClient } from './connection-error-guard.js';
import type { StoreLocation } from './store-location.js';

/** The advisory lock key every process of one PostgreSQL deployment takes while it starts. */
const STARTUP_LOCK = 'cc_startup';

/**
 * Runs the start-up steps that write shared state (the first operator token, the default
 * workspace) one process at a time (NF-SCALE). Each step reads, then writes when nothing is there:
 * two processes starting together on a fresh database both read "nothing" and both write, and the
 * loser fails (a second "Default" workspace is refused by name) or, worse, overwrites the shared
 * token file with a token the winner never learns. On PostgreSQL a session advisory lock on a
 * connection of its own serializes them across processes; ending that connection always releases
 * it, even when `work` throws. The embedded store serves one process, so it needs no lock.
 */
export async function withStartupLock<T>(location: StoreLocation, work: () => Promise<T>): Promise<T> {
  if (location.dialect !== 'postgres') return work();
  // Idle while `work` runs: a connection lost meanwhile must not crash the process (the lock goes with it).
  const client = guardClient(new pg.Client({ connectionString: location.url }));
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [STARTUP_LOCK]);
    return await work();
  } finally {
    await client.end().catch(() => undefined);
  }
}
