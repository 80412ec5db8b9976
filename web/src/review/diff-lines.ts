/** One rendered line of a unified diff. `newLine` is the head-side number findings anchor to. */
export interface DiffLine {
  kind: 'hunk' | 'add' | 'del' | 'ctx';
  text: string;
  newLine: number | null;
  oldLine: number | null;
}

export interface DiffFile {
  path: string;
  lines: DiffLine[];
}

function unquote(raw: string): string {
  if (!raw.startsWith('"')) return raw;
  try {
    // Git's C quoting of a path is close enough to a JSON string for display (octal escapes aside).
    return JSON.parse(raw.replace(/\\([0-7]{3})/g, (_match, octal: string) => `\\u00${parseInt(octal, 8).toString(16).padStart(2, '0')}`)) as string;
  } catch {
    return raw;
  }
}

/** Splits `git diff` output into files and numbered lines, for the review's diff view. */
export function parseDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let current: DiffFile | null = null;
  let inHunk = false;
  let oldPath: string | null = null;
  let oldLine = 0;
  let newLine = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = null;
      inHunk = false;
      continue;
    }
    if (!inHunk && line.startsWith('--- ')) {
      oldPath = line.slice(4) === '/dev/null' ? null : unquote(line.slice(4)).replace(/^a\//, '');
      continue;
    }
    if (!inHunk && line.startsWith('+++ ')) {
      const path = line.slice(4) === '/dev/null' ? oldPath : unquote(line.slice(4)).replace(/^b\//, '');
      current = { path: path ?? '(unknown)', lines: [] };
      files.push(current);
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/.exec(line);
    if (hunk && current) {
      inHunk = true;
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      current.lines.push({ kind: 'hunk', text: line, newLine: null, oldLine: null });
      continue;
    }
    if (!current || !inHunk) continue;
    if (line.startsWith('+')) current.lines.push({ kind: 'add', text: line.slice(1), newLine: newLine++, oldLine: null });
    else if (line.startsWith('-')) current.lines.push({ kind: 'del', text: line.slice(1), newLine: null, oldLine: oldLine++ });
    else if (line.startsWith(' ')) current.lines.push({ kind: 'ctx', text: line.slice(1), newLine: newLine++, oldLine: oldLine++ });
  }
  return files;
}
