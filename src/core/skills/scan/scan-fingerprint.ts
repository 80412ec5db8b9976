import { createHash } from 'node:crypto';
import type { SkillFolderEntry } from './scan-types.js';

/**
 * A digest of everything the scan judges in a skill folder (SKL-3): each entry's path, kind, mode
 * bits and bytes or link target. Two folders with the same fingerprint get the same verdict under
 * the same rules and policy, so a repo skill whose fingerprint is unchanged need not be scanned
 * again. The lock's `computedHash` is not enough for this: it follows the `npx skills` computation,
 * which leaves out links, mode bits and `.git`/`node_modules` — all facts the rules look at.
 * Every field is length-prefixed so no two different folders can feed the hash the same bytes.
 */
export function scanFingerprint(entries: readonly SkillFolderEntry[]): string {
  const hash = createHash('sha256');
  const field = (value: string | Uint8Array): void => {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    hash.update(`${bytes.byteLength}:`);
    hash.update(bytes);
  };
  for (const entry of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    field(entry.path);
    field(entry.kind);
    field(String(entry.mode));
    field(entry.kind === 'file' ? (entry.content ?? new Uint8Array()) : (entry.linkTarget ?? ''));
  }
  return hash.digest('hex');
}
