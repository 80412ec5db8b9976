import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import { computeSkillFolderHash } from '../../core/skills/skill-folder-hash.js';
import { skillNameProblem } from '../../core/skills/skill-frontmatter.js';
import { readSkillFolder } from './skill-folder-files.js';

/** A scanned skill to put where a runner's own discovery looks. */
export interface ScannedSkill {
  name: string;
  entries: readonly SkillFolderEntry[];
}

/** What {@link materializeWorktreeSkills} did: the folders written, and each place it refused, with why. */
export interface WorktreeSkillsOutcome {
  written: string[];
  refused: Array<{ path: string; reason: string }>;
}

/** The server-owned record of what was written into a checkout (outside it, so the agent cannot edit it). */
interface MaterializedRecord {
  version: 1;
  /** Worktree-relative folder → hash of the files written there. */
  folders: Record<string, string>;
}

/** Thrown for a path that may not be written; its message names the path and the problem. */
class RefusedPath extends Error {}

const filesHash = (entries: readonly SkillFolderEntry[]): string =>
  computeSkillFolderHash(entries.filter((entry) => entry.kind === 'file').map((entry) => ({ path: entry.path, content: entry.content! })));

/** A worktree-relative path's segments, refused when one is empty, `.`, `..` or the path is absolute. */
function segmentsOf(relativePath: string): string[] {
  const segments = relativePath.split('/');
  if (relativePath.startsWith('/') || segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('\\') || segment.includes('\0'))) {
    throw new RefusedPath(`'${relativePath}' is not a plain relative path`);
  }
  return segments;
}

/**
 * Makes sure each folder from `root` down `segments` is a real folder (created when missing), never
 * following a link: a link anywhere on the way — the agent's own `.claude` replaced by a link to
 * its HOME, say — is refused, so nothing is ever written outside the checkout.
 */
async function ensureRealFolders(root: string, segments: readonly string[]): Promise<string> {
  let current = root;
  for (const segment of segments) {
    current = join(current, segment);
    const stat = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!stat) {
      // Not recursive: a link raced into place makes this fail with EEXIST instead of being followed.
      await mkdir(current, { mode: 0o755 });
      continue;
    }
    if (stat.isSymbolicLink()) throw new RefusedPath(`'${current}' is a symbolic link`);
    if (!stat.isDirectory()) throw new RefusedPath(`'${current}' is not a folder`);
  }
  return current;
}

/** Writes the scanned files into the fresh folder `target` (created here; it must not exist), links never followed or written. */
async function writeFreshFolder(target: string, entries: readonly SkillFolderEntry[]): Promise<void> {
  await mkdir(target, { mode: 0o755 });
  try {
    await writeEntries(target, entries);
  } catch (error) {
    // The folder was created here, so it is ours to take back (rm removes links, never what they point at).
    await rm(target, { recursive: true, force: true });
    throw error;
  }
}

async function writeEntries(target: string, entries: readonly SkillFolderEntry[]): Promise<void> {
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const segments = segmentsOf(entry.path);
    const folder = await ensureRealFolders(target, segments.slice(0, -1));
    // O_EXCL | O_NOFOLLOW: never through a link, never over a file that is already there.
    const handle = await open(join(folder, segments.at(-1)!), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, entry.mode & 0o111 ? 0o755 : 0o644);
    try {
      await handle.writeFile(entry.content!);
    } finally {
      await handle.close();
    }
  }
}

async function readRecord(path: string): Promise<MaterializedRecord> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (!text) return { version: 1, folders: {} };
  const parsed = JSON.parse(text) as MaterializedRecord;
  return parsed?.version === 1 && parsed.folders && typeof parsed.folders === 'object' ? parsed : { version: 1, folders: {} };
}

/** Whether the folder at `relative` is still exactly what was written there: real folders all the way, no link inside, same files. */
async function stillOurs(worktreePath: string, relative: string, hash: string): Promise<boolean> {
  try {
    const segments = segmentsOf(relative);
    let current = worktreePath;
    for (const segment of segments) {
      current = join(current, segment);
      const stat = await lstat(current);
      if (stat.isSymbolicLink() || !stat.isDirectory()) return false;
    }
    const entries = await readSkillFolder(current);
    return entries.every((entry) => entry.kind === 'file') && filesHash(entries) === hash;
  } catch {
    return false;
  }
}

/**
 * Keeps the checkout's materialized skills out of the agent's commits: one `/<folder>/<name>/` line
 * per skill in `.git/info/exclude`, written only when `.git` and `.git/info` are real folders.
 */
async function excludeFromGit(worktreePath: string, skillFolders: readonly string[]): Promise<void> {
  const gitDir = await lstat(join(worktreePath, '.git')).catch(() => null);
  if (!gitDir || gitDir.isSymbolicLink() || !gitDir.isDirectory()) return;
  let info: string;
  try {
    // Checkouts are cloned without a template, so `info/` is usually missing.
    info = await ensureRealFolders(worktreePath, ['.git', 'info']);
  } catch (error) {
    if (error instanceof RefusedPath) return;
    throw error;
  }
  const exclude = join(info, 'exclude');
  const stat = await lstat(exclude).catch(() => null);
  if (stat && !stat.isFile()) return;
  const current = stat ? await readFile(exclude, 'utf8') : '';
  const missing = skillFolders.map((folder) => `/${folder}/`).filter((line) => !current.split('\n').includes(line));
  if (missing.length === 0) return;
  const handle = await open(exclude, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(`${current && !current.endsWith('\n') ? '\n' : ''}# Skills materialized by the Control Center (SKL-5)\n${missing.join('\n')}\n`);
  } finally {
    await handle.close();
  }
}

/**
 * SKL-5 for runners whose own skill discovery reads folders of the checkout (ACP agents: the
 * `.agents/skills/` every Agent Skills runner scans, `.claude/skills/` for Claude-based ones): the
 * scanned set is written as `<folder>/<name>/` into the checkout before the runner starts.
 *
 * The checkout is the agent's, so every step is confined: the skills written by the previous run
 * are removed first — only those still exactly as written (the server keeps what it wrote, with the
 * files' hash, in `recordPath`, outside the checkout); a folder on the way that is a link, or not a
 * folder, is refused; a skill name that is not a plain Agent Skills name (`..`, `/`) is refused; a
 * `<folder>/<name>` that is already there and not ours (the repository's own skill, or one the agent
 * changed) is left alone and refused, never overwritten; files are created with `O_EXCL|O_NOFOLLOW`.
 * A refusal only leaves that skill out: nothing unscanned is ever added by it.
 */
export async function materializeWorktreeSkills(input: {
  worktreePath: string;
  /** Worktree-relative folders, e.g. `.agents/skills`. */
  folders: readonly string[];
  skills: readonly ScannedSkill[];
  /** The server-owned record of what was written into this checkout. */
  recordPath: string;
}): Promise<WorktreeSkillsOutcome> {
  const outcome: WorktreeSkillsOutcome = { written: [], refused: [] };
  const previous = await readRecord(input.recordPath);
  for (const [relative, hash] of Object.entries(previous.folders)) {
    // A folder the agent changed (or replaced with a link) since is no longer ours: it stays as it is.
    if (await stillOurs(input.worktreePath, relative, hash)) await rm(join(input.worktreePath, ...segmentsOf(relative)), { recursive: true, force: true });
  }
  const record: MaterializedRecord = { version: 1, folders: {} };
  // Written before any skill, so a crash half-way never leaves a folder of ours unrecorded.
  const save = async () => {
    await mkdir(dirname(input.recordPath), { recursive: true, mode: 0o700 });
    await writeFile(input.recordPath, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  };
  for (const folder of input.folders) {
    let root: string;
    try {
      root = await ensureRealFolders(input.worktreePath, segmentsOf(folder));
    } catch (error) {
      if (!(error instanceof RefusedPath)) throw error;
      outcome.refused.push({ path: folder, reason: error.message });
      continue;
    }
    for (const skill of input.skills) {
      const relative = `${folder}/${skill.name}`;
      const problem = skillNameProblem(skill.name);
      if (problem) {
        outcome.refused.push({ path: relative, reason: `'${skill.name}' is not a skill name: ${problem}` });
        continue;
      }
      const target = join(root, skill.name);
      if (await lstat(target).then(() => true, () => false)) {
        outcome.refused.push({ path: relative, reason: `'${relative}' is already there and was not written by the Control Center` });
        continue;
      }
      record.folders[relative] = filesHash(skill.entries);
      await save();
      try {
        await writeFreshFolder(target, skill.entries);
      } catch (error) {
        delete record.folders[relative];
        await save();
        if (!(error instanceof RefusedPath) && (error as NodeJS.ErrnoException).code !== 'EEXIST' && (error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
        outcome.refused.push({ path: relative, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      outcome.written.push(relative);
    }
  }
  await save();
  // Per skill, not per folder: a skill the agent itself adds to `.claude/skills/` stays committable.
  if (outcome.written.length > 0) await excludeFromGit(input.worktreePath, outcome.written);
  return outcome;
}
