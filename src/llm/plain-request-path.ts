/**
 * SEC-8: the path of a request that a loopback endpoint holding a real credential forwards, checked on
 * the bytes the client sent. Each segment is decoded exactly once and must then be plain (letters,
 * digits and `. _ ~ : @ + -`, never a leading dot); anything a decoder, a URL parser or the upstream's router could turn
 * into another path is refused instead of being normalized, because normalizing after the allowlist
 * check is how `models/../files` reached a provider's file store with the real key.
 */
export type PlainPath = { ok: true; segments: string[] } | { ok: false; problem: string };

/**
 * What a decoded segment may hold: nothing that separates, escapes or climbs. No segment may begin
 * with a dot, so `.`, `..` and every spelling that decodes to them (`.%2e`, `%2E.`) are out by rule.
 */
const PLAIN_SEGMENT = /^[A-Za-z0-9_~:@+-][A-Za-z0-9._~:@+-]*$/;

/** Raw (still encoded) forms refused outright, whatever else the segment holds. */
const RAW_REFUSALS: ReadonlyArray<readonly [RegExp, string]> = [
  // eslint-disable-next-line no-control-regex -- a NUL is what this looks for
  [/\u0000|%00/i, 'holds a NUL byte'],
  [/\\|%5c/i, 'holds a backslash'],
  [/%2f/i, 'holds an encoded slash (%2f)'],
];

/**
 * Splits `rawPath` (what follows the endpoint's own prefix, `''` or starting with `/`, no query) into
 * decoded segments, or names why it is refused. `''` and `'/'` are the root (no segments).
 */
export function plainRequestPath(rawPath: string): PlainPath {
  if (rawPath === '' || rawPath === '/') return { ok: true, segments: [] };
  if (!rawPath.startsWith('/')) return { ok: false, problem: 'must start with /' };
  const segments: string[] = [];
  for (const raw of rawPath.slice(1).split('/')) {
    const problem = segmentProblem(raw);
    if (problem) return { ok: false, problem };
    segments.push(decodeURIComponent(raw));
  }
  return { ok: true, segments };
}

function segmentProblem(raw: string): string | null {
  for (const [pattern, problem] of RAW_REFUSALS) if (pattern.test(raw)) return problem;
  if (raw === '') return 'holds an empty segment (a doubled or trailing slash)';
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return `holds malformed percent-encoding in '${raw}'`;
  }
  // A `%` left after one decoding is a second layer (`%252e`): someone downstream would decode it again.
  if (decoded.includes('%')) return `holds double percent-encoding in '${raw}'`;
  if (decoded === '.' || decoded === '..') return `holds a dot segment ('${raw}')`;
  if (decoded.startsWith('.')) return `holds a segment that begins with a dot ('${raw}')`;
  if (!PLAIN_SEGMENT.test(decoded)) return `holds a character that is not allowed in '${raw}'`;
  return null;
}
