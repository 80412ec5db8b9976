import { execFileSync, spawn } from 'node:child_process';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';

/** git's trimmed stdout, run in `cwd` (the test's own git, outside any sandbox). */
export function gitText(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** The commit a ref of a (bare) repository points at, or null when it has no such ref. */
export function remoteRef(remotePath: string, ref: string): string | null {
  try {
    return gitText(remotePath, 'rev-parse', '--verify', '--quiet', ref);
  } catch {
    return null;
  }
}

/** `git push origin <refspec>` from `repoPath` with `env` (the push proxy's configuration); its exit code and stderr. */
export function pushToOrigin(repoPath: string, env: NodeJS.ProcessEnv, refspec: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', ['push', 'origin', refspec], { cwd: repoPath, env });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, stderr }));
  });
}

/** Waits until the workspace has at least `count` pending approvals (the operator's cards); returns them. */
export async function pendingApprovals(f: Pick<ClaudeCodeFixture, 'api' | 'workspaceId'>, count: number, timeoutMs = 30_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const approvals = (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals;
    if (approvals.length >= count) return approvals;
    if (Date.now() > deadline) throw new Error(`expected ${count} pending approval(s), found ${approvals.length}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
