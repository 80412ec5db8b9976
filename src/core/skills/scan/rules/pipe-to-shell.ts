import type { ScanRule } from '../scan-types.js';
import { matchLines } from './line-rule.js';

const FETCHER = String.raw`\b(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|http(?:ie)?|aria2c)\b`;
const INTERPRETER = String.raw`\b(?:sudo\s+)?(?:env\s+)?(?:ba|z|da|k|c|tc|fi)?sh\b|\bpython[0-9.]*\b|\bnode\b|\bperl\b|\bruby\b|\bphp\b|\biex\b|\bInvoke-Expression\b`;

/** SKL-3 `pipe-to-shell`: content fetched from the network is piped straight into an interpreter. */
export const pipeToShell: ScanRule = {
  id: 'pipe-to-shell',
  severity: 'quarantine',
  description: 'downloads content and pipes it into a shell or interpreter',
  checkText: (file) =>
    matchLines(
      // Every pattern needs a pipe or a command substitution: lines without one are skipped cheaply.
      { ...file, lines: file.lines.map((line) => (line.includes('|') || line.includes('$(') || line.includes('<(') ? line : '')) },
      'pipe-to-shell',
      'quarantine',
      [
        new RegExp(`${FETCHER}[^\\n]*\\|\\s*(?:${INTERPRETER})`, 'i'),
        new RegExp(String.raw`\b(?:ba|z)?sh\s+(?:-c\s+)?["']?\$\(\s*(?:curl|wget)\b`, 'i'),
        new RegExp(String.raw`\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b`, 'i'),
      ],
      'pipes content from the network into a shell or interpreter',
    ),
};
