/**
 * "2 minutes ago" for a past moment. Relative words answer "is this still in use?" at a glance;
 * pages put the exact time in a title attribute beside it for when the precise moment matters.
 */
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

const words = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/** `iso` relative to `now` (ms): "just now" under a minute (and for a clock slightly ahead), else "5 minutes ago", "3 days ago". */
export function timeAgo(iso: string, now: number = Date.now()): string {
  const seconds = Math.floor((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return '—';
  for (const [unit, size] of UNITS) {
    if (seconds >= size) return words.format(-Math.floor(seconds / size), unit);
  }
  return 'just now';
}
