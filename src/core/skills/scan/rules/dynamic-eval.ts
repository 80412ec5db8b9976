import type { ScanRule } from '../scan-types.js';
import { matchLines } from './line-rule.js';

/**
 * SKL-3 `dynamic-eval`: `eval`/`exec`/`new Function` over a value that is not a literal, so what runs
 * is decided when the skill runs, not when it was scanned. A literal argument (`eval("1+1")`) is not flagged.
 */
export const dynamicEval: ScanRule = {
  id: 'dynamic-eval',
  severity: 'quarantine',
  description: 'evaluates a dynamically built string as code',
  checkText: (file) =>
    matchLines(
      file,
      'dynamic-eval',
      'quarantine',
      [
        /(?<![\w.$])eval\s*\(\s*(?!["'`][^"'`$]*["'`]\s*\))[^)\s]/,
        /\bnew\s+Function\s*\(/,
        /(?<![\w.])exec\s*\(\s*(?!["'][^"']*["']\s*[,)])[A-Za-z_(]/,
        /(?:^|[;&|]\s*|\s)eval\s+["']?\$/,
        /\bInvoke-Expression\b|\biex\s+\$/i,
      ],
      'evaluates a dynamically built string as code',
    ),
};
