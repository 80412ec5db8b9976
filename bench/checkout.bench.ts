/**
 * Time to create a conversation's checkout (SEC-3) for a repository of 10k files: the clone with
 * shared objects (`git clone --shared --no-checkout`, remotes copied, branch checked out, recorded).
 * The peer in the same run is the old design's `git worktree add -b` of the same repository, so the
 * ratio shows what the isolation costs. Medians over several rounds; each round uses a fresh id.
 * Also the time to bring one new commit of a checkout into the user's repository after a run (a
 * bundle made inside the host's sandbox, fetched with a fixed refspec), which every run that could
 * write pays once at its end.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandSandbox } from '../src/sandbox/command-sandbox.js';
import { ensureWorktree, memoryCheckoutRecords, syncWorktreeBranch, type CheckoutRecord } from '../src/git/git-worktrees.js';
import { median, type BenchFigure } from './figure.js';

const FILES = 10_000;
const ROUNDS = 5;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd, stdio: 'ignore' });
}

export default async function checkoutBenchmark(): Promise<BenchFigure[]> {
  const root = mkdtempSync(join(tmpdir(), 'cc-bench-checkout-'));
  try {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    for (let index = 0; index < FILES; index += 1) {
      const dir = join(repo, `d${index % 100}`);
      if (index < 100) mkdirSync(dir);
      writeFileSync(join(dir, `f${index}.ts`), `export const value${index} = ${index};\n`);
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'ten thousand files');
    git(repo, 'remote', 'add', 'origin', 'https://example.invalid/repo.git');

    const records = memoryCheckoutRecords();
    const worktreesDir = join(root, 'worktrees');
    const clone: number[] = [];
    const worktree: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      let start = process.hrtime.bigint();
      await ensureWorktree({ repoPath: repo, worktreesDir, conversationId: `bench_${round}`, records });
      clone.push(Number(process.hrtime.bigint() - start) / 1e6);
      start = process.hrtime.bigint();
      git(repo, 'worktree', 'add', '--quiet', '-b', `old/bench_${round}`, join(root, 'old', `bench_${round}`), 'main');
      worktree.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const record = (await records.get('bench_0')) as CheckoutRecord;
    const sandbox = new CommandSandbox({ sandbox: 'auto' });
    const runner = sandbox.checkoutRunner({ worktreePath: join(worktreesDir, 'bench_0'), sharedObjectsDir: record.sourceObjectsDir, workspaceDir: worktreesDir });
    const sync: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      writeFileSync(join(worktreesDir, 'bench_0', `agent-${round}.txt`), `round ${round}\n`);
      git(join(worktreesDir, 'bench_0'), 'add', '-A');
      git(join(worktreesDir, 'bench_0'), 'commit', '--quiet', '-m', `agent round ${round}`);
      const start = process.hrtime.bigint();
      const result = await syncWorktreeBranch(record, runner);
      if (!result.synced) throw new Error(result.reason);
      sync.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const backend = (await sandbox.backend()).backend?.id ?? 'none';
    const cloneMs = median(clone);
    const worktreeMs = median(worktree);
    return [
      { metric: 'checkout_create_10k_files_median', value: cloneMs, unit: 'ms' },
      { metric: 'peer_git_worktree_add_10k_files_median', value: worktreeMs, unit: 'ms' },
      { metric: 'checkout_vs_worktree_ratio', value: cloneMs / worktreeMs, unit: 'x' },
      { metric: `sync_one_commit_median_${backend}`, value: median(sync), unit: 'ms' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
