import type { ScanFinding, ScanRule } from '../scan-types.js';
import { describeRefusedLink, resolveFolderLinks } from '../folder-links.js';

/**
 * SKL-3 `symlink-escape`, SEC-12: a link that, resolved as the file system would (chains and links
 * through linked folders included), does not end at a file or folder inside the skill folder.
 */
export const symlinkEscape: ScanRule = {
  id: 'symlink-escape',
  severity: 'quarantine',
  description: 'has a symbolic link that does not resolve to a file or folder inside the skill folder',
  checkFolder(entries): ScanFinding[] {
    const findings: ScanFinding[] = [];
    for (const [path, resolution] of resolveFolderLinks(entries)) {
      if (resolution.ok) continue;
      const target = entries.find((entry) => entry.path === path)?.linkTarget ?? '';
      findings.push({ ruleId: 'symlink-escape', severity: 'quarantine', file: path, line: 0, message: describeRefusedLink(path, target, resolution) });
    }
    return findings;
  },
};
