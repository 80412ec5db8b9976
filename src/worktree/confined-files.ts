import { realpath } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import {
  existsConfinedProgram,
  listConfinedProgram,
  locateConfinedProgram,
  readConfinedProgram,
  writeConfinedProgram,
} from './confined-file-programs.js';
import type { ConfinedRoot } from './confined-resolve.js';
import { runAsync } from './confined-syscalls.js';
import { walkConfined } from './confined-walk.js';
import { requestedComponents } from './requested-path.js';
import type { WalkedFile } from './walked-file.js';
import type { WorktreeFiles } from './worktree-files.js';

/**
 * {@link WorktreeFiles} that cannot be raced out of the root (SEC-4, Linux): every operation walks
 * from a descriptor of the root, one component at a time, through `/proc/self/fd/<dirfd>/<name>`
 * with `O_NOFOLLOW` (`resolveConfined`); symlinks are followed only by this code and only while
 * they stay under the root; writes go to a fresh temporary file renamed over the name; walks descend
 * through held descriptors. A path checked and then swapped has nothing left to win: there is no
 * separate check.
 */
export class ConfinedFiles implements WorktreeFiles {
  private readonly root: string;
  private confinedRootPromise: Promise<ConfinedRoot> | undefined;

  constructor(root: string) {
    this.root = resolvePath(root);
  }

  private confinedRoot(): Promise<ConfinedRoot> {
    this.confinedRootPromise ??= realpath(this.root).then((realPath) => ({ realPath, aliases: [...new Set([this.root, realPath])] }));
    return this.confinedRootPromise;
  }

  private async locate(path: string): Promise<[ConfinedRoot, string[]]> {
    const root = await this.confinedRoot();
    return [root, requestedComponents(this.root, root.realPath, path)];
  }

  async resolve(path: string): Promise<string> {
    const [root, components] = await this.locate(path);
    return join(root.realPath, ...(await runAsync(locateConfinedProgram(root, components, path))));
  }

  async readFile(path: string): Promise<string> {
    const [root, components] = await this.locate(path);
    const content = await runAsync(readConfinedProgram(root, components, path));
    return (content as Buffer).toString('utf8');
  }

  async writeFile(path: string, content: string): Promise<void> {
    const [root, components] = await this.locate(path);
    await runAsync(writeConfinedProgram(root, components, path, Buffer.from(content, 'utf8')));
  }

  async list(path: string): Promise<string[]> {
    const [root, components] = await this.locate(path);
    return runAsync(listConfinedProgram(root, components, path));
  }

  async exists(path: string): Promise<boolean> {
    const [root, components] = await this.locate(path);
    return runAsync(existsConfinedProgram(root, components, path));
  }

  async *walk(start: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
    const [root, components] = await this.locate(start);
    yield* walkConfined(root, components, start, signal);
  }
}
