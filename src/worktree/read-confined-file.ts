import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { readConfinedProgram } from './confined-file-programs.js';
import type { ConfinedRoot } from './confined-resolve.js';
import { runAsync, runSync } from './confined-syscalls.js';
import { procFdSupported } from './proc-fd-support.js';
import { requestedComponents } from './requested-path.js';

export interface ReadConfinedFileOptions {
  /** Larger files give null (default 1 MiB). */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;

function confinedRoot(root: string, realPath: string): ConfinedRoot {
  return { realPath, aliases: [...new Set([root, realPath])] };
}

/**
 * Reads a regular file inside a worktree for the server's own use — for example a script the shell
 * classifier wants to see before it classifies `bash script.sh` (SEC-5) — with the same confined
 * resolution as the file tools (SEC-4): it cannot be raced onto a file outside `root`. Returns null
 * when the file cannot be read for any reason (missing, outside the root, not a regular file, larger
 * than `maxBytes`, no `/proc/self/fd` on this system): the caller treats the content as unseen.
 */
export async function readConfinedFile(root: string, relativePath: string, options: ReadConfinedFileOptions = {}): Promise<Buffer | null> {
  if (!procFdSupported()) return null;
  try {
    const absoluteRoot = resolvePath(root);
    const realRoot = await realpath(absoluteRoot);
    const components = requestedComponents(absoluteRoot, realRoot, relativePath);
    return await runAsync(readConfinedProgram(confinedRoot(absoluteRoot, realRoot), components, relativePath, options.maxBytes ?? DEFAULT_MAX_BYTES));
  } catch {
    return null;
  }
}

/** {@link readConfinedFile} with blocking calls, for callers that cannot await (a handful of metadata calls and one read). */
export function readConfinedFileSync(root: string, relativePath: string, options: ReadConfinedFileOptions = {}): Buffer | null {
  if (!procFdSupported()) return null;
  try {
    const absoluteRoot = resolvePath(root);
    const realRoot = realpathSync(absoluteRoot);
    const components = requestedComponents(absoluteRoot, realRoot, relativePath);
    return runSync(readConfinedProgram(confinedRoot(absoluteRoot, realRoot), components, relativePath, options.maxBytes ?? DEFAULT_MAX_BYTES));
  } catch {
    return null;
  }
}
