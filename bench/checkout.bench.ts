/**
 * Time to create a conversation's checkout (SEC-3) for a repository of 10k files: the clone with
 * shared objects (`git clone --shared --no-checkout`, remotes copied, branch checked out, recorded).
 * The peer in the same run is the old design's `git worktree add -b` of the same repository, so the
 * ratio shows what the isolation costs. Medians over several rounds; each round uses a fresh id.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWorktree, memoryCheckoutRecords } from '../src/tools/git-worktrees.js';
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
    const cloneMs = median(clone);
    const worktreeMs = median(worktree);
    return [
      { metric: 'checkout_create_10k_files_median', value: cloneMs, unit: 'ms' },
      { metric: 'peer_git_worktree_add_10k_files_median', value: worktreeMs, unit: 'ms' },
      { metric: 'checkout_vs_worktree_ratio', value: cloneMs / worktreeMs, unit: 'x' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
