import { execFileSync, spawn } from 'node:child_process';

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
