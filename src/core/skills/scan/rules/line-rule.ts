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
