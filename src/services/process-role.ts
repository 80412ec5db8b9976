import type { StoreLocation } from '../store/store-location.js';

/**
 * What one process of a deployment does (NF-SCALE):
 * - `all` (plain `serve`): HTTP and SSE, and it claims and executes work — the embedded default;
 * - `api` (`serve --role api`): HTTP and SSE only; it enqueues work and never executes a run, a
 *   pipeline or plan node, or a timeout;
 * - `worker` (`control-center worker`): no API; it claims and executes the work the API processes
 *   enqueue.
 */
export type ProcessRole = 'all' | 'api' | 'worker';

export const PROCESS_ROLES: readonly ProcessRole[] = ['all', 'api', 'worker'];

/**
 * Splitting roles needs a store every process shares: on the embedded SQLite files an API process
 * and a worker would each hold a store nobody else sees. Refused at start, by name.
 */
export function checkRole(role: string, store: StoreLocation): ProcessRole {
  if (!PROCESS_ROLES.includes(role as ProcessRole)) throw new Error(`--role must be one of ${PROCESS_ROLES.join(', ')}, not '${role}'`);
  if (role !== 'all' && store.dialect !== 'postgres') {
    throw new Error(`the ${role} role needs a shared PostgreSQL store: give --database postgres://… (or CONTROL_CENTER_DATABASE_URL); the embedded SQLite store runs one process with every role`);
  }
  return role as ProcessRole;
}

/** Whether a process of this role claims and executes work. */
export function executesWork(role: ProcessRole): boolean {
  return role !== 'api';
}
