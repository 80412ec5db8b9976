import type { ScanFinding, ScanRule } from '../scan-types.js';
import { lineAt } from './line-rule.js';

const MARKDOWN = /\.(?:md|markdown|mdx|html?)$/i;

/**
 * Elements a rendered page does not show: the `hidden` attribute, or a style that hides them
 * (`display: none`, `visibility: hidden`, zero size or opacity). Their text reaches a model all the same.
 */
const HIDDEN_ELEMENT = /<[a-zA-Z][^<>]{0,500}?(?:\shidden(?=[\s/>=])|style\s*=\s*["'][^"'<>]{0,500}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])))[^<>]{0,500}>/gi;

/** SKL-3 `hidden-html-comment`: text a model reads but a rendered page hides from the reviewer (comments and hidden elements). */
export const hiddenHtmlComment: ScanRule = {
  id: 'hidden-html-comment',
  severity: 'warn',
  description: 'holds HTML comments or elements hidden from rendered Markdown',
  checkText(file): ScanFinding[] {
    if (!MARKDOWN.test(file.path)) return [];
    const findings: ScanFinding[] = [];
    for (const match of file.text.matchAll(/<!--([\s\S]*?)(?:-->|$)/g)) {
      if (match[1]!.trim() === '') continue;
      findings.push({ ruleId: 'hidden-html-comment', severity: 'warn', file: file.path, line: lineAt(file.text, match.index), message: 'holds an HTML comment that rendered Markdown hides' });
    }
    for (const match of file.text.matchAll(HIDDEN_ELEMENT)) {
      findings.push({ ruleId: 'hidden-html-comment', severity: 'warn', file: file.path, line: lineAt(file.text, match.index), message: 'holds an HTML element that rendered Markdown hides' });
    }
    return findings;
  },
};
