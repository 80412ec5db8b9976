/**
 * Failover in seconds (SPEC §15, docs/scale-out.md "Failover in seconds"): how long a process on a
 * shared store may stay silent before the others take it for dead, and how often it beats.
 *
 * Detection, worst case: a process dies just after a beat; its row is stale `lease` later and the
 * next sweep of any live process (one beat period later at most) records the death:
 * lease + period = 4 s + 0.5 s = 4.5 s with the defaults, under the 5 s target.
 * Margin against false deaths: a beat may come up to lease − period = 3.5 s late (a busy event loop,
 * a slow database) before the process looks dead; a late timer is logged well before that.
 */
export const DEFAULT_SHARED_LEASE_MS = 4_000;

/** How often a process beats and sweeps for dead ones: an eighth of its lease, within 250 ms – 1 s. */
export function heartbeatPeriodMs(leaseMs: number): number {
  return Math.min(1_000, Math.max(250, Math.round(leaseMs / 8)));
}
