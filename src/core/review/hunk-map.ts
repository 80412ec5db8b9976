import type { FindingAnchor, HunkMap } from './review-types.js';

/**
 * Undoes git's C-style path quoting (`"a\tb\303\251"`): paths with control characters, quotes or
 * non-ASCII bytes are printed that way unless `core.quotePath` is off.
 */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index]!;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const next = body[index + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1, index + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      index += 3;
      continue;
    }
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
    bytes.push(simple[next] ?? next.charCodeAt(0));
    index += 1;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path of a `--- a/x` / `+++ b/x` line, or null for `/dev/null`. */
function headerPath(rest: string, prefix: 'a/' | 'b/'): string | null {
  const trimmed = rest.replace(/\t$/, '');
  if (trimmed === '/dev/null') return null;
  const path = unquoteGitPath(trimmed);
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function pushLine(ranges: Array<[number, number]>, line: number): void {
  const last = ranges[ranges.length - 1];
  if (last && line <= last[1] + 1) {
    last[1] = Math.max(last[1], line);
    return;
  }
  ranges.push([line, line]);
}

/**
 * The hunk map of a unified diff (`git diff`, any context size, no renames): for each file, the
 * head-side line ranges that were added or changed. A pure deletion marks the head line where the
 * removed lines were, so a finding about removed code can still be anchored (a deleted file: its line
 * 1). Binary files have no lines and are not in the map.
 */
export function parseHunkMap(diff: string): HunkMap {
  const map: HunkMap = {};
  let current: Array<[number, number]> | null = null;
  let oldPath: string | null = null;
  let newLine = 0;
  let removedHere = false;
  const lines = diff.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.startsWith('diff --git ')) {
      current = null;
      oldPath = null;
      continue;
    }
    if (line.startsWith('--- ') && current === null) {
      oldPath = headerPath(line.slice(4), 'a/');
      continue;
    }
    if (line.startsWith('+++ ') && current === null) {
      const path = headerPath(line.slice(4), 'b/') ?? oldPath;
      if (path === null) continue;
      current = map[path] ?? (map[path] = []);
      continue;
    }
    if (line.startsWith('@@ ')) {
      const match = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!match || !current) continue;
      newLine = Number(match[1]);
      removedHere = false;
      continue;
    }
    if (!current) continue;
    if (line.startsWith('+')) {
      pushLine(current, newLine);
      newLine += 1;
      removedHere = false;
    } else if (line.startsWith('-')) {
      if (!removedHere) pushLine(current, Math.max(newLine, 1));
      removedHere = true;
    } else if (line.startsWith(' ')) {
      newLine += 1;
      removedHere = false;
    }
  }
  for (const ranges of Object.values(map)) ranges.sort((left, right) => left[0] - right[0]);
  return map;
}

/**
 * Why an anchor cannot be placed on this diff, or null when it can (REV-2: anchors are checked when
 * the finding is added, so the agent hears about it, not the publisher). An anchor must name a file
 * of the diff and overlap one of its changed ranges.
 */
export function anchorProblem(anchor: FindingAnchor, hunks: HunkMap): string | null {
  if (!Number.isInteger(anchor.startLine) || !Number.isInteger(anchor.endLine) || anchor.startLine < 1 || anchor.endLine < anchor.startLine) {
    return `the line range ${anchor.startLine}-${anchor.endLine} is not a valid range (1-based, startLine <= endLine)`;
  }
  if (!Object.hasOwn(hunks, anchor.path)) return `${JSON.stringify(anchor.path)} is not a file changed by this review's diff`;
  const ranges = hunks[anchor.path]!;
  if (ranges.some(([start, end]) => anchor.startLine <= end && anchor.endLine >= start)) return null;
  const shown = ranges.slice(0, 12).map(([start, end]) => (start === end ? `${start}` : `${start}-${end}`)).join(', ');
  return `lines ${anchor.startLine}-${anchor.endLine} of ${anchor.path} are outside the diff (changed lines: ${shown || 'none'})`;
}
