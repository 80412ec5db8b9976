import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from './harness-fixture.js';

/** CTX-3 tests: a built-in harness conversation on a real repository (README.md committed), and the way to its checkout. */
export interface RewindFixture {
  readonly fixture: HarnessFixture;
  /** The conversation's checkout, where turns write and rewinds return. */
  worktree(): string;
}

export const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** Starts the fixture before the file's tests and disposes of it after them. */
export function useRewindFixture(): RewindFixture {
  let started: HarnessFixture | undefined;
  let scratch: string | undefined;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'cc-rewind-'));
    const repoPath = join(scratch, 'repo');
    execFileSync('git', ['init', '-q', '-b', 'main', repoPath]);
    await writeFile(join(repoPath, 'README.md'), 'start\n');
    git(repoPath, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'init');
    git(repoPath, 'add', 'README.md');
    git(repoPath, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'readme');
    started = await startHarnessFixture({ space: { repoPath, autonomy: 'actFreely' }, operatorConnected: false });
  }, 120_000);
  afterAll(async () => {
    await started?.dispose();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });
  return {
    get fixture() {
      if (!started) throw new Error('the rewind fixture starts in beforeAll');
      return started;
    },
    worktree() {
      return join(this.fixture.workspaceDir, 'worktrees', this.fixture.conversationId);
    },
  };
}
