import { constants, rmSync } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import Database from 'better-sqlite3';
import { PRODUCT_VERSION } from '../../server/product-version.js';

/** The file that makes a directory a complete backup: written last, so a backup cut short has none. */
export const BACKUP_MANIFEST = 'control-center-backup.json';
const FORMAT = 1;
/** The registry database inside a data root. */
const REGISTRY_FILE = 'registry.sqlite';

/**
 * What a data root holds that a backup leaves out: the running server's address (it describes a
 * process, not data) and SQLite's side files, which the online backup folds into the copy.
 */
const TRANSIENT = new Set(['server.json']);
const SQLITE_SIDE_FILE = /\.sqlite-(?:wal|shm|journal)$/;

export interface BackupManifest {
  format: number;
  productVersion: string;
  createdAt: string;
  /** The data root it was taken from: a restore elsewhere rewrites the paths the registry stores. */
  dataRoot: string;
  /** Data-root-relative paths of the databases copied with SQLite's online backup. */
  databases: string[];
  files: number;
  bytes: number;
}

/** A backup or restore that cannot be done as asked; nothing was changed. */
export class BackupRefused extends Error {}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.length === 0;
}

/** Null when the path went away meanwhile: a running server creates and removes staging folders. */
async function unlessGone<T>(work: Promise<T>): Promise<T | null> {
  return work.catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Every path under `root`, parents before children, without following symbolic links. */
async function* walk(root: string, dir = root): AsyncGenerator<{ path: string; relativePath: string; kind: 'dir' | 'file' | 'link' | 'other'; mode: number }> {
  for (const name of ((await unlessGone(readdir(dir))) ?? []).sort()) {
    const path = join(dir, name);
    const info = await unlessGone(lstat(path));
    if (!info) continue;
    const kind = info.isDirectory() ? 'dir' : info.isFile() ? 'file' : info.isSymbolicLink() ? 'link' : 'other';
    yield { path, relativePath: relative(root, path), kind, mode: info.mode & 0o7777 };
    if (kind === 'dir') yield* walk(root, path);
  }
}

/**
 * Copies a data root of the embedded store while its server runs (NF-SCALE, operations). Each
 * SQLite database goes through SQLite's online backup API, which gives a consistent copy of that
 * database even while another process writes to it; every other file (workspace folders, skills,
 * checkouts, the operator token) is copied as it is, modes kept, links not followed. The databases
 * are copied one by one, so a workspace created while the backup runs may be missing from it.
 */
export async function backupDataRoot(dataRoot: string, target: string): Promise<BackupManifest> {
  const source = resolve(dataRoot);
  const destination = resolve(target);
  if (!(await stat(join(source, REGISTRY_FILE)).catch(() => null))) {
    throw new BackupRefused(`${source} is not a Control Center data root (it has no ${REGISTRY_FILE})`);
  }
  if (destination === source || destination.startsWith(source + sep)) throw new BackupRefused('the backup directory must be outside the data root');
  if (!(await isEmptyOrMissing(destination))) throw new BackupRefused(`${destination} is not empty: a backup goes into a new or empty directory`);
  // Private like the data root: the copy holds the operator token and every stored secret.
  await mkdir(destination, { recursive: true, mode: 0o700 });

  const manifest: BackupManifest = { format: FORMAT, productVersion: PRODUCT_VERSION, createdAt: new Date().toISOString(), dataRoot: source, databases: [], files: 0, bytes: 0 };
  for await (const entry of walk(source)) {
    if (TRANSIENT.has(entry.relativePath) || SQLITE_SIDE_FILE.test(entry.relativePath)) continue;
    const copy = join(destination, entry.relativePath);
    if (entry.kind === 'dir') {
      await mkdir(copy, { mode: entry.mode | 0o700 });
    } else if (entry.kind === 'link') {
      const target = await unlessGone(readlink(entry.path));
      if (target === null) continue;
      await symlink(target, copy);
    } else if (entry.kind === 'file' && entry.relativePath.endsWith('.sqlite')) {
      const database = new Database(entry.path, { readonly: true, fileMustExist: true });
      try {
        await database.backup(copy);
      } finally {
        database.close();
      }
      manifest.databases.push(entry.relativePath);
    } else if (entry.kind === 'file') {
      if ((await unlessGone(copyFile(entry.path, copy, constants.COPYFILE_EXCL))) === null) continue;
    } else {
      continue; // sockets and pipes are a live process's, not data
    }
    if (entry.kind === 'file') {
      manifest.files += 1;
      manifest.bytes += (await stat(copy)).size;
    }
  }
  // A copy that SQLite cannot read back is no backup: checked before the manifest makes it one.
  for (const relativePath of manifest.databases) assertDatabaseReadable(join(destination, relativePath));
  await writeFile(join(destination, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return manifest;
}

function assertDatabaseReadable(file: string): void {
  const database = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const result = database.pragma('quick_check', { simple: true });
    if (result !== 'ok') throw new BackupRefused(`the copy of ${file} fails SQLite's check: ${String(result)}`);
  } finally {
    database.close();
    // Opening the copy to check it leaves SQLite's side files next to it; the backup holds none.
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
  }
}

async function readManifest(backup: string): Promise<BackupManifest> {
  const text = await readFile(join(backup, BACKUP_MANIFEST), 'utf8').catch(() => null);
  if (text === null) throw new BackupRefused(`${backup} is not a complete backup: it has no ${BACKUP_MANIFEST}`);
  const manifest = JSON.parse(text) as BackupManifest;
  if (manifest.format !== FORMAT) throw new BackupRefused(`${backup} is a backup of format ${String(manifest.format)}; this release reads format ${FORMAT}`);
  return manifest;
}

/**
 * Restores a backup into a new or empty data root. It is assembled in a sibling folder and renamed
 * into place at the end, so a restore cut short never leaves a half data root a server would open.
 * Restored elsewhere than where it was taken, the registry's workspace folders are pointed at the
 * new place. The server's next start applies the migrations of its release, as after an upgrade.
 */
export async function restoreDataRoot(backup: string, dataRoot: string): Promise<BackupManifest> {
  const source = resolve(backup);
  const destination = resolve(dataRoot);
  const manifest = await readManifest(source);
  if (!(await isEmptyOrMissing(destination))) throw new BackupRefused(`${destination} is not empty: a restore goes into a new or empty data root, so nothing there is overwritten`);
  const staging = `${destination}.restoring-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true, mode: 0o700 });
  try {
    for await (const entry of walk(source)) {
      if (entry.relativePath === BACKUP_MANIFEST || SQLITE_SIDE_FILE.test(entry.relativePath)) continue;
      const copy = join(staging, entry.relativePath);
      if (entry.kind === 'dir') await mkdir(copy, { mode: entry.mode | 0o700 });
      else if (entry.kind === 'link') await symlink(await readlink(entry.path), copy);
      else if (entry.kind === 'file') await copyFile(entry.path, copy, constants.COPYFILE_EXCL);
    }
    if (resolve(manifest.dataRoot) !== destination) pointWorkspacesAt(join(staging, REGISTRY_FILE), resolve(manifest.dataRoot), destination);
    await rm(destination, { recursive: true, force: true }); // empty, checked above
    await rename(staging, destination);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return manifest;
}

/** The embedded registry stores each workspace's folder as an absolute path under the data root. */
function pointWorkspacesAt(registryFile: string, from: string, to: string): void {
  const database = new Database(registryFile, { fileMustExist: true });
  try {
    const rows = database.prepare('select id, data_dir from workspaces').all() as Array<{ id: string; data_dir: string }>;
    const update = database.prepare('update workspaces set data_dir = ? where id = ?');
    database.transaction(() => {
      for (const row of rows) {
        if (row.data_dir === from || row.data_dir.startsWith(from + sep)) update.run(to + row.data_dir.slice(from.length), row.id);
      }
    })();
  } finally {
    database.close();
  }
}
