import { SCAN_RULES } from './rule-catalog.js';
import { verdictOf } from './scan-skill.js';
import type { ScanFinding, ScanRule, ScanVerdict } from './scan-types.js';
import { normalizeUntrustedText } from './untrusted-text.js';

/** What the scan of one piece of untrusted display text found. */
export interface DisplayTextScan {
  verdict: ScanVerdict;
  findings: ScanFinding[];
}

/**
 * Runs the skill scan's text rules (SKL-3, SEC-12) over one piece of display text a third party wrote
 * — an MCP tool's description (TOOL-2) — as if it were a file named `label`. The text is judged by what
 * it says (hidden payloads decoded, NFKC), like a skill file. A rule that throws is a quarantine
 * finding, not a pass: text nobody could check is not shown to a model as checked.
 */
export function scanDisplayText(label: string, text: string, rules: readonly ScanRule[] = SCAN_RULES): DisplayTextScan {
  const normalized = normalizeUntrustedText(text);
  const file = { path: label, text: normalized, lines: normalized.split(/\r?\n|\r/), raw: text };
  const findings: ScanFinding[] = [];
  for (const rule of rules) {
    if (!rule.checkText) continue;
    try {
      for (const finding of rule.checkText(file)) findings.push(finding);
    } catch (error) {
      findings.push({ ruleId: rule.id, severity: 'quarantine', file: label, line: 0, message: `the rule could not check this text: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  return { verdict: verdictOf(findings), findings };
}
