import { mkdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';

/**
 * The file-system calls the services make, behind an interface so tests can inject a failure at
 * any step and prove that a row and its files are written together or not at all (AG-2).
 */
export interface FileOperations {
  mkdir(path: string): Promise<void>;
  writeFile(path: string, content: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
}

export const nodeFileOperations: FileOperations = {
  mkdir: async (path) => {
    await mkdir(path, { recursive: true });
  },
  writeFile: (path, content) => writeFile(path, content, 'utf8'),
  symlink: (target, path) => symlink(target, path),
  rename: (from, to) => rename(from, to),
  remove: (path) => rm(path, { recursive: true, force: true }),
  exists: async (path) => {
    try {
      await stat(path);
      return true;
    } catch {
      return false;
    }
  },
};
