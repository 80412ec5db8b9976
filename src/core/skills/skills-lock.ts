import type { ScanVerdict } from './scan/scan-types.js';

/**
 * One pinned skill of `skills-lock.json` (SKL-3). The first five fields are the `npx skills` CLI's
 * project-lock fields with its names and meaning (`source`, `ref`, `sourceType`, `skillPath`,
 * `computedHash`); `commit`, `scanVerdict`, `rulesVersion` and `override` are ours.
 */
export interface SkillsLockEntry {
  source: string;
  ref?: string;
  sourceType: string;
  skillPath?: string;
  computedHash: string;
  /** The source commit the folder was fetched at (the pin). */
  commit: string;
  scanVerdict: ScanVerdict;
  rulesVersion: string;
  /** Present when an operator installed a quarantined skill anyway (the override's id). */
  override?: string;
}

export interface SkillsLockFile {
  version: 1;
  skills: Record<string, SkillsLockEntry>;
}

const ENTRY_KEYS: ReadonlyArray<keyof SkillsLockEntry> = ['source', 'ref', 'sourceType', 'skillPath', 'computedHash', 'commit', 'scanVerdict', 'rulesVersion', 'override'];

/**
 * The lock's text: skills sorted by name, each entry's keys in one fixed order, no timestamps, two-space
 * JSON and a final newline — so two installs of the same set write the same bytes (SKL-3).
 */
export function renderSkillsLock(skills: Readonly<Record<string, SkillsLockEntry>>): string {
  const sorted: Record<string, Record<string, unknown>> = {};
  for (const name of Object.keys(skills).sort()) {
    const entry = skills[name]!;
    const ordered: Record<string, unknown> = {};
    for (const key of ENTRY_KEYS) if (entry[key] !== undefined) ordered[key] = entry[key];
    sorted[name] = ordered;
  }
  return `${JSON.stringify({ version: 1, skills: sorted }, null, 2)}\n`;
}

/** Reads a lock; null when the text is not a version-1 lock (verify reports it instead of trusting it). */
export function parseSkillsLock(text: string): SkillsLockFile | null {
  try {
    const parsed = JSON.parse(text) as { version?: unknown; skills?: unknown };
    if (parsed.version !== 1 || !parsed.skills || typeof parsed.skills !== 'object' || Array.isArray(parsed.skills)) return null;
    return parsed as SkillsLockFile;
  } catch {
    return null;
  }
}
