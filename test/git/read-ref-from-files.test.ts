import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRefFromFiles } from '../../src/git/read-ref-from-files.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@localhost', ...args], { cwd, encoding: 'utf8' }).trim();
/** What git itself says: the ref's object name, or null when there is no such ref. */
const gitSays = (repo: string, ref: string) => git(repo, 'for-each-ref', '--format=%(objectname)', ref) || null;

describe('readRefFromFiles: a branch tip without a git process, exactly as git reads it', () => {
  let repo: string;
  let commits: string[];

  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), 'cc-read-ref-'));
    git(repo, 'init', '--quiet', '-b', 'main');
    commits = [];
    for (let index = 0; index < 3; index += 1) {
      await writeFile(join(repo, 'file.txt'), `${index}\n`);
      git(repo, 'add', '.');
      git(repo, 'commit', '--quiet', '-m', `c${index}`);
      commits.push(git(repo, 'rev-parse', 'HEAD'));
    }
  });
  afterAll(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  it('agrees with git for loose, packed, packed-then-moved and deleted branches', async () => {
    // A sequence of operations on cc/ branches, the answer compared with git's after each one.
    const names = ['cc/a', 'cc/b', 'cc/deep/c'];
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), name: fc.constantFrom(...names), commit: fc.nat(2) }),
      fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...names) }),
      fc.constant({ kind: 'pack' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 6 }), async (operations) => {
        for (const name of names) execFileSync('git', ['update-ref', '-d', `refs/heads/${name}`], { cwd: repo });
        for (const step of operations) {
          if (step.kind === 'set') git(repo, 'update-ref', `refs/heads/${step.name}`, commits[step.commit]!);
          if (step.kind === 'delete') execFileSync('git', ['update-ref', '-d', `refs/heads/${step.name}`], { cwd: repo });
          if (step.kind === 'pack') git(repo, 'pack-refs', '--all');
          for (const name of names) {
            const ref = `refs/heads/${name}`;
            const read = await readRefFromFiles(join(repo, '.git'), ref);
            // undefined means "ask git"; whenever it answers, the answer is git's.
            if (read !== undefined) expect(read).toBe(gitSays(repo, ref));
          }
        }
      }),
      { numRuns: 15 },
    );
  });

  it('answers for a plain branch, and leaves unusual names and symbolic refs to git', async () => {
    git(repo, 'update-ref', 'refs/heads/cc/plain', commits[0]!);
    expect(await readRefFromFiles(join(repo, '.git'), 'refs/heads/cc/plain')).toBe(commits[0]);
    expect(await readRefFromFiles(join(repo, '.git'), 'refs/heads/cc/missing')).toBeNull();
    expect(await readRefFromFiles(join(repo, '.git'), 'refs/heads/../../config')).toBeUndefined();
    expect(await readRefFromFiles(join(repo, '.git'), 'HEAD')).toBeUndefined();
    git(repo, 'symbolic-ref', 'refs/heads/cc/alias', 'refs/heads/main');
    expect(await readRefFromFiles(join(repo, '.git'), 'refs/heads/cc/alias')).toBeUndefined();
  });

  it('leaves anything but a small regular file at the loose ref to git, without waiting on it (a FIFO, a directory, an oversized file)', async () => {
    const gitDir = join(repo, '.git');
    execFileSync('mkdir', ['-p', join(gitDir, 'refs', 'heads', 'odd')]);
    execFileSync('mkfifo', [join(gitDir, 'refs', 'heads', 'odd', 'fifo')]);
    execFileSync('mkdir', ['-p', join(gitDir, 'refs', 'heads', 'odd', 'folder')]);
    await writeFile(join(gitDir, 'refs', 'heads', 'odd', 'large'), `${commits[0]}\n${' '.repeat(4096)}`);
    // A blocking read of the FIFO would never return: nothing writes to it.
    expect(await readRefFromFiles(gitDir, 'refs/heads/odd/fifo')).toBeUndefined();
    expect(await readRefFromFiles(gitDir, 'refs/heads/odd/folder')).toBeUndefined();
    expect(await readRefFromFiles(gitDir, 'refs/heads/odd/large')).toBeUndefined();
    await rm(join(gitDir, 'refs', 'heads', 'odd'), { recursive: true, force: true });
  });

  it('leaves a reftable repository to git', async () => {
    const other = await mkdtemp(join(tmpdir(), 'cc-read-ref-reftable-'));
    try {
      try {
        execFileSync('git', ['init', '--quiet', '--ref-format=reftable', other], { stdio: 'ignore' });
      } catch {
        // An older git without reftable: the marker directory stands in for it.
        execFileSync('git', ['init', '--quiet', other]);
        execFileSync('mkdir', [join(other, '.git', 'reftable')]);
      }
      expect(await readRefFromFiles(join(other, '.git'), 'refs/heads/cc/any')).toBeUndefined();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
