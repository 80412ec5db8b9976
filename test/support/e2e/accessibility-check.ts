import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** One axe-core rule a page breaks seriously, with where (a few CSS targets) and what a person misses. */
export interface AccessibilityViolation {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * The accessibility check (UI): axe-core's WCAG 2.1 A and AA rules on the page as it is shown. Only
 * serious and critical violations count: those stop someone from using the page (no name on a
 * button, unreadable contrast, a field without its label); moderate ones are advice.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.slice(0, 4).map((node) => node.target.join(' ')),
    }));
}
