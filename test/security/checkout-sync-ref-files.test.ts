/**
 * SEC-3: after a run the server reads the checkout's loose ref file for the branch tip
 * instead of starting a sandboxed `git rev-parse`. Every byte of the checkout is the agent's, so this
 * proves that a hostile checkout gets nothing from it:
 * - no program of the checkout runs on the host (its config arms fsmonitor, a hook, a pager: none
 *   fires, and no git process is started at all when the branch is at a known commit);
 * - a ref file (or `.git`) that is a link leading out of the checkout, a FIFO, an oversized or
 *   symbolic ref reads as nothing, so the host never reads outside through it and never blocks;
 * - an object name the user's repository does not have is never acted on from the file: git in the
 *   checkout's sandbox decides, as before.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckoutRunner } from '../../src/git/checkout-runner.js';
import { ensureWorktree, memoryCheckoutRecords, syncWorktreeBranch, type CheckoutRecord, type CheckoutRecords } from '../../src/git/git-worktrees.js';
import { readCheckoutRefHint } from '../../src/git/read-checkout-ref.js';
import { CommandSandbox } from '../../src/sandbox/command-sandbox.js';
import { procFdSupported } from '../../src/worktree/proc-fd-support.js';
import { git } from '../support/review-repo.js';
import { makeTempDir } from '../support/tool-test-support.js';

/** Whether the agent's armed programs left their mark on the host. */
const markerLeft = async () => (await stat(marker).catch(() => null)) !== null;

let base: { path: string; cleanup: () => Promise<void> };
let repo: string;
let worktreesDir: string;
let records: CheckoutRecords;
let checkout: { path: string; record: CheckoutRecord };
let marker: string;
const sandbox = new CommandSandbox({ sandbox: 'auto' });
const REF = 'refs/heads/cc/conv_hostile';

/** The server's sandboxed runner, with every command it was asked to run recorded. */
function recordingRunner(): { runner: CheckoutRunner; calls: string[][] } {
  const calls: string[][] = [];
  const real = sandbox.checkoutRunner({ worktreePath: checkout.path, sharedObjectsDir: checkout.record.sourceObjectsDir, workspaceDir: worktreesDir });
  return {
    calls,
    runner: (argv, env) => {
      calls.push([...argv]);
      return real(argv, env);
    },
  };
}

beforeEach(async () => {
  base = await makeTempDir('cc-sync-refs-');
  repo = join(base.path, 'repo');
  worktreesDir = join(base.path, 'worktrees');
  marker = join(base.path, 'host-ran-agent-code');
  records = memoryCheckoutRecords();
  await mkdir(repo);
  git(repo, 'init', '--quiet', '--initial-branch=main');
  await writeFile(join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'first');
  const made = await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: 'conv_hostile', records });
  checkout = { path: made.path, record: made.checkout! };
  // The agent arms every program-running config key it can think of, and a hook.
  const script = join(checkout.path, 'evil.sh');
  await writeFile(script, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  for (const [key, value] of [
    ['core.fsmonitor', script],
    ['core.hooksPath', checkout.path],
    ['core.pager', script],
    ['alias.rev-parse', `!${script}`],
  ]) {
    git(checkout.path, 'config', key!, value!);
  }
  await writeFile(join(checkout.path, 'post-checkout'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
});

afterEach(async () => {
  await base.cleanup();
});

describe.skipIf(!procFdSupported())('the checkout sync reads the branch tip from the checkout only as a confined hint (SEC-3)', () => {
  it('a branch at a known commit is synced without starting any process, and none of the checkout’s programs runs', async () => {
    const { runner, calls } = recordingRunner();
    const synced = await syncWorktreeBranch(checkout.record, runner, { worktreePath: checkout.path });
    expect(synced).toEqual({ synced: true, ref: REF, sha: checkout.record.baseSha });
    expect(calls).toEqual([]);
    expect(git(repo, 'rev-parse', REF)).toBe(checkout.record.baseSha);
    expect(await markerLeft()).toBe(false);
  });

  it('a ref file linked out of the checkout is not read: git in the sandbox decides', async () => {
    // Outside the checkout, a file holding exactly the known commit: reading it would look like a plain ref.
    const outside = join(base.path, 'outside-ref');
    await writeFile(outside, `${checkout.record.baseSha}\n`);
    await rm(join(checkout.path, '.git', REF));
    await symlink(outside, join(checkout.path, '.git', REF));
    expect(await readCheckoutRefHint(checkout.path, REF)).toBeNull();
    const { runner, calls } = recordingRunner();
    await syncWorktreeBranch(checkout.record, runner, { worktreePath: checkout.path });
    expect(calls[0]?.slice(0, 2)).toEqual(['git', 'rev-parse']);
    expect(await markerLeft()).toBe(false);
  });

  it('a .git linked to a repository outside the checkout is not read', async () => {
    const outsideRepo = join(base.path, 'outside-repo');
    await mkdir(outsideRepo);
    git(outsideRepo, 'init', '--quiet', '--initial-branch=main');
    await mkdir(join(outsideRepo, '.git', 'refs', 'heads', 'cc'), { recursive: true });
    await writeFile(join(outsideRepo, '.git', REF), `${checkout.record.baseSha}\n`);
    await rm(join(checkout.path, '.git'), { recursive: true, force: true });
    await symlink(join(outsideRepo, '.git'), join(checkout.path, '.git'));
    expect(await readCheckoutRefHint(checkout.path, REF)).toBeNull();
  });

  it('a FIFO in place of the ref reads as nothing and does not block the server', async () => {
    await rm(join(checkout.path, '.git', REF));
    execFileSync('mkfifo', [join(checkout.path, '.git', REF)]);
    const started = Date.now();
    expect(await readCheckoutRefHint(checkout.path, REF)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('oversized, symbolic and malformed ref files read as nothing', async () => {
    const file = join(checkout.path, '.git', REF);
    for (const content of [`${checkout.record.baseSha}\n`.repeat(100), 'ref: refs/heads/main\n', `${checkout.record.baseSha} trailing\n`, `-${checkout.record.baseSha.slice(1)}\n`]) {
      await writeFile(file, content);
      expect(await readCheckoutRefHint(checkout.path, REF), JSON.stringify(content.slice(0, 60))).toBeNull();
    }
    // A ref name that could climb out of .git is never even looked up.
    expect(await readCheckoutRefHint(checkout.path, 'refs/heads/../../../outside-ref')).toBeNull();
  });

  it('an object name the user’s repository does not have is not acted on from the file', async () => {
    const bogus = 'f'.repeat(40);
    await writeFile(join(checkout.path, '.git', REF), `${bogus}\n`);
    expect(await readCheckoutRefHint(checkout.path, REF)).toBe(bogus);
    const { runner, calls } = recordingRunner();
    const synced = await syncWorktreeBranch(checkout.record, runner, { worktreePath: checkout.path });
    expect(calls[0]?.slice(0, 2)).toEqual(['git', 'rev-parse']);
    expect(synced.synced).toBe(false);
    expect(git(repo, 'for-each-ref', '--format=%(objectname)', REF)).not.toBe(bogus);
    expect(await markerLeft()).toBe(false);
    expect(await readFile(join(checkout.path, '.git', REF), 'utf8')).toBe(`${bogus}\n`);
  });
});
