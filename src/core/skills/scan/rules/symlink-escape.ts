import { posix } from 'node:path';
import type { ScanFinding, ScanRule } from '../scan-types.js';

/** True when a link at `linkPath` (relative to the skill root) pointing at `target` stays inside the root. */
export function linkStaysInside(linkPath: string, target: string): boolean {
  if (target === '' || target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target) || target.includes('\\') || target.includes('\0')) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(linkPath), target));
  return resolved !== '..' && !resolved.startsWith('../') && resolved !== '.';
}

/** SKL-3 `symlink-escape`: a link whose target leaves the skill folder (absolute, or climbing out). */
export const symlinkEscape: ScanRule = {
  id: 'symlink-escape',
  severity: 'quarantine',
  description: 'has a symbolic link leaving the skill folder',
  checkEntry(entry): ScanFinding[] {
    if (entry.kind !== 'symlink') return [];
    if (linkStaysInside(entry.path, entry.linkTarget ?? '')) return [];
    return [{ ruleId: 'symlink-escape', severity: 'quarantine', file: entry.path, line: 0, message: `is a symbolic link to '${entry.linkTarget ?? ''}', outside the skill folder` }];
  },
};
