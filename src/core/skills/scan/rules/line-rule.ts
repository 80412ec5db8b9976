import type { FindingSeverity, ScanFinding, TextFile } from '../scan-types.js';

/** Findings for every line of `file` matching one of `patterns` (one finding per line). */
export function matchLines(file: TextFile, ruleId: string, severity: FindingSeverity, patterns: readonly RegExp[], message: string): ScanFinding[] {
  const findings: ScanFinding[] = [];
  file.lines.forEach((line, index) => {
    if (patterns.some((pattern) => pattern.test(line))) findings.push({ ruleId, severity, file: file.path, line: index + 1, message });
  });
  return findings;
}

/** The 1-based line of character offset `index` in `text`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Findings for every match of `patterns` over the whole text of `file` (one finding per line a
 * match starts on): for phrases a line break must not hide (SEC-12).
 */
export function matchText(file: TextFile, ruleId: string, severity: FindingSeverity, patterns: readonly RegExp[], message: string): ScanFinding[] {
  const starts: number[] = [];
  for (const pattern of patterns) {
    for (const match of file.text.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))) starts.push(match.index);
  }
  // One pass over the text for all matches: a file full of matches must not cost a pass per match.
  const lines = new Set<number>();
  let line = 1;
  let offset = 0;
  for (const start of starts.sort((a, b) => a - b)) {
    for (; offset < start; offset++) if (file.text.charCodeAt(offset) === 10) line++;
    lines.add(line);
  }
  return [...lines].map((at) => ({ ruleId, severity, file: file.path, line: at, message }));
}
