import { randomBytes } from 'node:crypto';

/**
 * Sortable, prefixed ids (`ws_…`, `ag_…`, `run_…`): 12 hex digits of milliseconds, then a per-process
 * counter and random bits, so ids made in the same millisecond still sort in creation order.
 */
let lastMillis = 0;
let counter = 0;

export function newId(prefix: string): string {
  const now = Date.now();
  if (now === lastMillis) {
    counter += 1;
  } else {
    lastMillis = now;
    counter = 0;
  }
  const time = now.toString(16).padStart(12, '0');
  const sequence = counter.toString(16).padStart(4, '0');
  return `${prefix}_${time}${sequence}${randomBytes(5).toString('hex')}`;
}

/** Current time as ISO-8601 UTC, the only timestamp format the store and the API use. */
export function nowIso(): string {
  return new Date().toISOString();
}
