import { createHash } from 'node:crypto';

/** Directory names the `npx skills` CLI leaves out of a skill's hash, at any depth. */
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

/**
 * The `computedHash` of a skill folder exactly as the `npx skills` CLI computes it for its project
 * lock (`skills-lock.json`, SKL-3), so a lock written here verifies there and vice versa: regular
 * files only (symbolic links are not followed), `.git` and `node_modules` directories skipped, files
 * ordered by their `/`-separated relative path with `String.prototype.localeCompare`, and one SHA-256
 * over each file's path (UTF-8) followed by its bytes, hex-encoded.
 */
export function computeSkillFolderHash(files: ReadonlyArray<{ path: string; content: Uint8Array }>): string {
  const included = files.filter((file) => !file.path.split('/').slice(0, -1).some((segment) => SKIPPED_DIRECTORIES.has(segment)));
  const sorted = [...included].sort((a, b) => a.path.localeCompare(b.path));
  const hash = createHash('sha256');
  for (const file of sorted) {
    hash.update(file.path, 'utf8');
    hash.update(file.content);
  }
  return hash.digest('hex');
}
