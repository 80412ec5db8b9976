/**
 * SEC, WS-3: PostgreSQL's `text` cannot hold the NUL character (SQLite's can), and
 * operator and agent text — messages, tool output, run-log payloads, file names — may contain it.
 * Refusing it would lose an agent's output; dropping it would be a silent change. So the PostgreSQL
 * store escapes it reversibly, at the one place every statement of a store handle passes through
 * (its connection: nul-escaping-dialect.ts, installed by `openPostgres`): each string parameter is
 * escaped on the way in and each string column is unescaped on the way out, and the rest of the
 * code sees what SQLite would have given it.
 *
 * The escape is byte stuffing with a marker PostgreSQL accepts and text practically never holds:
 * U+FDD0, a Unicode noncharacter (reserved for a program's internal use). NUL becomes
 * marker + `0`, the marker itself becomes marker + marker; decoding reads left to right, so every
 * string round-trips exactly, the marker included. Text in SQLite is never escaped.
 *
 * Limits: equality and prefix searches compare escaped with escaped and so match as on SQLite; a
 * `like` substring search for text that starts with `0` or the marker can also match right after a
 * marker the text held (a false positive only, and only around the noncharacter). Job payloads
 * that go to pg-boss (a `jsonb` column, which refuses `\u0000` too) are escaped with `escapeNulDeep`
 * by the job queue itself (pg-boss-job-queue.ts).
 */
export const NUL_MARKER = '\uFDD0';
// eslint-disable-next-line no-control-regex -- finding NUL is this pattern's whole job
const TO_ESCAPE = /[\u0000\uFDD0]/g;
const ESCAPED = /\uFDD0([0\uFDD0])/g;

/** Text as the PostgreSQL store keeps it: NUL → marker + `0`, marker → marker + marker. */
export function escapeNul(text: string): string {
  if (!text.includes('\u0000') && !text.includes(NUL_MARKER)) return text;
  return text.replace(TO_ESCAPE, (character) => (character === '\u0000' ? `${NUL_MARKER}0` : `${NUL_MARKER}${NUL_MARKER}`));
}

/** The inverse of `escapeNul`. A marker not followed by `0` or another marker is left as it is. */
export function unescapeNul(text: string): string {
  if (!text.includes(NUL_MARKER)) return text;
  return text.replace(ESCAPED, (_match, escaped: string) => (escaped === '0' ? '\u0000' : NUL_MARKER));
}

/** `escapeNul` over every string of a JSON-like value (object keys too); other values are kept. */
export function escapeNulDeep(value: unknown): unknown {
  return mapStrings(value, escapeNul);
}

/** The inverse of `escapeNulDeep`. */
export function unescapeNulDeep(value: unknown): unknown {
  return mapStrings(value, unescapeNul);
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
  }
  return value;
}
