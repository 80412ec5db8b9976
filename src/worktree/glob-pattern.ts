/**
 * A small glob matcher (Node 20 has no `fs.glob`). Supported: `*` (any run of characters within one
 * path segment), `?` (one character), `**` as a whole segment (any number of directories, none
 * included), `[abc]` / `[!abc]` classes, `{a,b}` alternatives and `\` escapes. Like `.gitignore` and
 * ripgrep's `--glob`, a pattern without a `/` matches the file name at any depth: `*.ts` finds every
 * TypeScript file, `src/*.ts` only those directly in `src`.
 */

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

function escapeRegex(text: string): string {
  return text.replace(REGEX_SPECIAL, '\\$&');
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(pattern: string, open: number): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') index += 1;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** Splits the inside of `{…}` at its top-level commas. */
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index];
    if (char === '\\') index += 1;
    else if (char === '{') depth += 1;
    else if (char === '}') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(body.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function convert(pattern: string): string {
  let out = '';
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index] as string;
    if (char === '*') {
      if (pattern[index + 1] === '*') {
        const after = index + 2;
        const wholeSegment = (index === 0 || pattern[index - 1] === '/') && (after === pattern.length || pattern[after] === '/');
        if (wholeSegment) {
          if (after === pattern.length) {
            out += '.*';
            index = after;
          } else {
            out += '(?:[^/]*/)*';
            index = after + 1;
          }
          continue;
        }
        out += '[^/]*';
        index = after;
        continue;
      }
      out += '[^/]*';
      index += 1;
    } else if (char === '?') {
      out += '[^/]';
      index += 1;
    } else if (char === '[') {
      // `]` right after `[` or `[!` is a literal member of the class.
      let close = index + 1;
      if (pattern[close] === '!' || pattern[close] === '^') close += 1;
      if (pattern[close] === ']') close += 1;
      while (close < pattern.length && pattern[close] !== ']') close += 1;
      if (close >= pattern.length) {
        out += '\\[';
        index += 1;
        continue;
      }
      let body = pattern.slice(index + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/^\]/, '\\]')}]`;
      index = close + 1;
    } else if (char === '{') {
      const close = closingBrace(pattern, index);
      const alternatives = close === -1 ? [] : splitAlternatives(pattern.slice(index + 1, close));
      if (alternatives.length < 2) {
        out += '\\{';
        index += 1;
        continue;
      }
      out += `(?:${alternatives.map(convert).join('|')})`;
      index = close + 1;
    } else if (char === '\\' && index + 1 < pattern.length) {
      out += escapeRegex(pattern[index + 1] as string);
      index += 2;
    } else {
      out += escapeRegex(char);
      index += 1;
    }
  }
  return out;
}

/** The pattern as the matcher reads it: no leading `./`, and `**\/` in front when it names no directory. */
function normalizePattern(pattern: string): string {
  let normalized = pattern;
  while (normalized.startsWith('./')) normalized = normalized.slice(2);
  return normalized.includes('/') ? normalized : `**/${normalized}`;
}

/** Compiles a glob into an anchored regular expression over `/`-separated relative paths. */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${convert(normalizePattern(pattern))}$`);
}

/** A reusable matcher: `matcher('src/a.ts')`. Paths are relative and `/`-separated. */
export function globMatcher(pattern: string): (relativePath: string) => boolean {
  const regex = globToRegExp(pattern);
  return (relativePath) => regex.test(relativePath);
}

/**
 * The directory part of a pattern that contains no wildcard (`src/lib` for `src/lib/**\/*.ts`), so a
 * search can start there instead of walking the whole tree. `''` when the pattern starts with a wildcard.
 */
export function globBase(pattern: string): string {
  const segments = normalizePattern(pattern).split('/');
  segments.pop();
  const literal: string[] = [];
  for (const segment of segments) {
    if (/[*?[\]{}\\]/.test(segment)) break;
    literal.push(segment);
  }
  return literal.join('/');
}
