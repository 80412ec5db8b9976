import type { SpendPeriod } from '../../schemas/budget.js';

/** The current period of a limit at `now` (UTC): `2026-12-06` for a day, `2026-12` for a month. */
export function periodKey(period: SpendPeriod, now: Date): string {
  const iso = now.toISOString();
  return period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/**
 * The ISO-8601 bounds [start, end) of the period `key` names. Recorded times are ISO strings in UTC,
 * so a period's calls are the rows whose `created_at` sorts between the two.
 */
export function periodBounds(period: SpendPeriod, key: string): { start: string; end: string } {
  if (period === 'day') {
    const start = new Date(`${key}T00:00:00.000Z`);
    const end = new Date(start.getTime() + 24 * 60 * 60 * 1000);
    return { start: start.toISOString(), end: end.toISOString() };
  }
  const [year, month] = key.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)).toISOString(), end: new Date(Date.UTC(year, month, 1)).toISOString() };
}
