import type { EffectClass } from '../../effect-classes.js';
import type { Decision } from '../../decisions.js';

/** The verdict of the supply-chain scan (SKL-3): nothing reaches disk or a prompt without one. */
export type ScanVerdict = 'pass' | 'warn' | 'quarantine';

/** How bad one finding is; the verdict is the worst finding (none → pass). */
export type FindingSeverity = 'warn' | 'quarantine';

/** One entry of a skill folder as fetched, before anything is written (paths relative, `/`-separated). */
export interface SkillFolderEntry {
  path: string;
  kind: 'file' | 'symlink';
  /** POSIX mode bits as git or the file system reported them. */
  mode: number;
  /** File bytes (for `file`). */
  content?: Uint8Array;
  /** Link target as stored (for `symlink`). */
  linkTarget?: string;
}

/**
 * A text file of the folder, decoded once. `text` and `lines` are the normalized view the content
 * rules read (SEC-12: hidden payloads decoded, NFKC, hidden characters removed; line breaks kept);
 * `raw` is the text as decoded from the bytes, for the rule that looks for the hidden characters.
 */
export interface TextFile {
  path: string;
  text: string;
  lines: readonly string[];
  raw: string;
}

/** One rule hit: which rule, where (file + 1-based line; 0 for whole-file facts) and why. */
export interface ScanFinding {
  ruleId: string;
  severity: FindingSeverity;
  file: string;
  line: number;
  message: string;
}

/** A static rule. Rules are pure: they see the entries/text and return findings; a throw is a scanner error (refusal). */
export interface ScanRule {
  id: string;
  severity: FindingSeverity;
  description: string;
  /** Checks one decoded text file. */
  checkText?(file: TextFile): ScanFinding[];
  /** Checks one entry (mode bits, link targets, raw bytes). */
  checkEntry?(entry: SkillFolderEntry): ScanFinding[];
  /** Checks the folder as a whole (facts no single entry shows, like where a chain of links leads). */
  checkFolder?(entries: readonly SkillFolderEntry[]): ScanFinding[];
}

/** The capabilities a skill's content shows it uses (SKL-3), each mapped to a POL-2 effect class. */
export const SKILL_CAPABILITIES = ['runsShell', 'writesFiles', 'deletes', 'network', 'secrets', 'installsPackages'] as const;
export type SkillCapability = (typeof SKILL_CAPABILITIES)[number];

export const CAPABILITY_EFFECT_CLASS: Readonly<Record<SkillCapability, EffectClass>> = {
  runsShell: 'processSpawn',
  writesFiles: 'fileWriteOutsideWorktree',
  deletes: 'fileDelete',
  network: 'networkEgress',
  secrets: 'secretAccess',
  installsPackages: 'packageInstall',
};

/** One capability with the first place it was seen. */
export interface CapabilityEvidence {
  capability: SkillCapability;
  effectClass: EffectClass;
  file: string;
  line: number;
  /** The workspace-scope decision for the class when the report was made. */
  decision: Decision;
}

/** The full report of one scan; stored, shown to the operator, and summarized into the lock. */
export interface ScanReport {
  verdict: ScanVerdict;
  rulesVersion: string;
  findings: ScanFinding[];
  capabilities: CapabilityEvidence[];
  fileCount: number;
  byteCount: number;
}
