import { DEFAULT_EFFECT_DECISIONS, type EffectClass } from '../../effect-classes.js';
import type { Decision } from '../../decisions.js';
import { parseSkillFile, SkillFormatError } from '../skill-frontmatter.js';
import { capabilityFindings, deriveCapabilities } from './capability-manifest.js';
import { SCAN_RULES, SCAN_RULES_VERSION } from './rule-catalog.js';
import { isBinary } from './rules/binary-file.js';
import { normalizeUntrustedText } from './untrusted-text.js';
import type { ScanFinding, ScanReport, ScanRule, ScanVerdict, SkillFolderEntry, TextFile } from './scan-types.js';

/** Limits past which the scan refuses instead of reading (a folder too big to read is not a verdict). */
export const SCAN_LIMITS = { maxFiles: 5000, maxFileBytes: 8 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 } as const;

/** The scan could not reach a verdict: the install is refused and nothing is written (SKL-3, fail-closed). */
export class SkillScanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkillScanError';
  }
}

export interface ScanOptions {
  /** The skill's folder name: SKILL.md's `name` must equal it. */
  folderName: string;
  /** Workspace-scope decisions per effect class (defaults: POL-2 built-ins). */
  decisions?: Readonly<Record<EffectClass, Decision>>;
  /** The rule set (tests inject a failing rule to prove a crash is a refusal). */
  rules?: readonly ScanRule[];
}

const RANK: Readonly<Record<ScanVerdict, number>> = { pass: 0, warn: 1, quarantine: 2 };

/** The worst verdict of a list of findings; no finding is a pass. */
export function verdictOf(findings: readonly Pick<ScanFinding, 'severity'>[]): ScanVerdict {
  return findings.reduce<ScanVerdict>((worst, finding) => (RANK[finding.severity] > RANK[worst] ? finding.severity : worst), 'pass');
}

/**
 * A file that opens with a UTF-16 byte order mark is text to a model's file tools, which decode it,
 * though its NUL bytes make it binary to UTF-8 (SEC-12): read it as the text it is, so the content
 * rules see what it says. Null for anything else, or for UTF-16 that does not decode.
 */
function utf16Text(bytes: Uint8Array): string | null {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : null;
  if (!encoding) return null;
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The fail-closed supply-chain scan of one skill folder (SKL-3), pure over the fetched entries: the
 * folder must hold a valid SKILL.md named after the folder; every static rule runs on every entry
 * and text file; the capability manifest is checked against the workspace decisions. Any error —
 * a rule throwing, a limit passed, an invalid SKILL.md — is a {@link SkillScanError}, never a pass.
 */
export function scanSkillFolder(entries: readonly SkillFolderEntry[], options: ScanOptions): ScanReport {
  const rules = options.rules ?? SCAN_RULES;
  if (entries.length > SCAN_LIMITS.maxFiles) throw new SkillScanError(`the folder has ${entries.length} entries, more than the scan reads (${SCAN_LIMITS.maxFiles})`);
  let byteCount = 0;
  const texts: TextFile[] = [];
  const findings: ScanFinding[] = [];
  for (const entry of entries) {
    if (entry.kind === 'file') {
      if (!entry.content) throw new SkillScanError(`'${entry.path}' has no content to scan`);
      if (entry.content.byteLength > SCAN_LIMITS.maxFileBytes) throw new SkillScanError(`'${entry.path}' is larger than the scan reads (${SCAN_LIMITS.maxFileBytes} bytes)`);
      byteCount += entry.content.byteLength;
      if (byteCount > SCAN_LIMITS.maxTotalBytes) throw new SkillScanError(`the folder is larger than the scan reads (${SCAN_LIMITS.maxTotalBytes} bytes)`);
      const raw = isBinary(entry.content) ? utf16Text(entry.content) : new TextDecoder('utf-8').decode(entry.content);
      if (raw !== null) {
        // SEC-12: the rules judge what the text says, not how its characters are spelled.
        const text = normalizeUntrustedText(raw);
        texts.push({ path: entry.path, text, lines: text.split(/\r?\n|\r/), raw });
      }
    }
  }
  const skillFile = entries.find((entry) => entry.path === 'SKILL.md');
  if (!skillFile || skillFile.kind !== 'file') throw new SkillScanError('the folder has no SKILL.md file');
  const skillText = texts.find((file) => file.path === 'SKILL.md');
  if (!skillText || isBinary(skillFile.content!)) throw new SkillScanError('SKILL.md is not UTF-8 text');
  try {
    // The raw text: the frontmatter is checked as it will be read when the skill loads.
    parseSkillFile(skillText.raw, options.folderName);
  } catch (error) {
    if (error instanceof SkillFormatError) throw new SkillScanError(error.message);
    throw error;
  }
  // One at a time, not spread: a file can match on hundreds of thousands of lines, more arguments than a call takes.
  const add = (found: readonly ScanFinding[]): void => {
    for (const finding of found) findings.push(finding);
  };
  for (const rule of rules) {
    try {
      if (rule.checkEntry) for (const entry of entries) add(rule.checkEntry(entry));
      if (rule.checkFolder) add(rule.checkFolder(entries));
      if (rule.checkText) for (const file of texts) add(rule.checkText(file));
    } catch (error) {
      throw new SkillScanError(`rule '${rule.id}' failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const capabilities = deriveCapabilities(texts, options.decisions ?? DEFAULT_EFFECT_DECISIONS);
  findings.push(...capabilityFindings(capabilities));
  findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0)));
  return { verdict: verdictOf(findings), rulesVersion: SCAN_RULES_VERSION, findings, capabilities, fileCount: entries.length, byteCount };
}
