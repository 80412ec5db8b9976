import type { ScanFinding, ScanRule } from '../scan-types.js';
import { lineAt } from './line-rule.js';

const MARKDOWN = /\.(?:md|markdown|mdx|html?)$/i;

/** SKL-3 `hidden-html-comment`: text a model reads but a rendered page hides from the reviewer. */
export const hiddenHtmlComment: ScanRule = {
  id: 'hidden-html-comment',
  severity: 'warn',
  description: 'holds HTML comments hidden from rendered Markdown',
  checkText(file): ScanFinding[] {
    if (!MARKDOWN.test(file.path)) return [];
    const findings: ScanFinding[] = [];
    for (const match of file.text.matchAll(/<!--([\s\S]*?)(?:-->|$)/g)) {
      if (match[1]!.trim() === '') continue;
      findings.push({ ruleId: 'hidden-html-comment', severity: 'warn', file: file.path, line: lineAt(file.text, match.index), message: 'holds an HTML comment that rendered Markdown hides' });
    }
    return findings;
  },
};
