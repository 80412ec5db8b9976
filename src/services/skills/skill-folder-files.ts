import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { resolveFolderLinks } from '../../core/skills/scan/folder-links.js';
import type { SkillFolderEntry } from '../../core/skills/scan/scan-types.js';

/**
 * Writes scanned entries into a fresh folder `target` (which must not exist). A link is written
 * only when, resolved as the file system will resolve it (chains and links through linked folders
 * included, SEC-12), it ends at a file or folder of this folder — never otherwise, even under an
 * override: the folder can only hold what it scanned.
 */
export async function writeSkillFolder(target: string, entries: readonly SkillFolderEntry[]): Promise<void> {
  await mkdir(target, { recursive: false });
  const links = resolveFolderLinks(entries);
  for (const entry of entries) {
    const path = join(target, ...entry.path.split('/'));
    await mkdir(dirname(path), { recursive: true });
    if (entry.kind === 'file') await writeFile(path, entry.content!, { flag: 'wx', mode: entry.mode & 0o111 ? 0o755 : 0o644 });
    else if (links.get(entry.path)?.ok) await symlink(entry.linkTarget!, path);
  }
}

/** Reads an installed folder back as entries (for hashing, diffs and materializing); links are not followed. */
export async function readSkillFolder(root: string): Promise<SkillFolderEntry[]> {
  const entries: SkillFolderEntry[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const dirent of await readdir(dir, { withFileTypes: true })) {
      const path = prefix ? `${prefix}/${dirent.name}` : dirent.name;
      const full = join(dir, dirent.name);
      if (dirent.isDirectory()) await walk(full, path);
      else if (dirent.isFile()) entries.push({ path, kind: 'file', mode: (await lstat(full)).mode & 0o777, content: new Uint8Array(await readFile(full)) });
      else if (dirent.isSymbolicLink()) entries.push({ path, kind: 'symlink', mode: 0o120000, linkTarget: await readlink(full) });
    }
  };
  await walk(root, '');
  return entries;
}

/** Replaces `target` with the folder at `staged` (rename, so a reader sees the old or the new, never half). */
export async function swapFolder(staged: string, target: string, backup: string): Promise<void> {
  const hadOld = await lstat(target).then(() => true, () => false);
  if (hadOld) await rename(target, backup);
  try {
    await rename(staged, target);
  } catch (error) {
    if (hadOld) await rename(backup, target);
    throw error;
  }
  if (hadOld) await rm(backup, { recursive: true, force: true });
}
