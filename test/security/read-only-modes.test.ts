/**
 * SEC-7: read-only modes write nothing anywhere, git metadata included. On the old design every
 * `task` call in plan or review mode ran `git worktree add -b cc/run_…` in the user's repository,
 * leaving a branch and a checkout per call; a subagent now works in its parent's checkout (read-only
 * in read-only modes), and the checkout itself — its `.git` included — is mounted read-only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { CommandSandbox } from '../../src/sandbox/command-sandbox.js';
import { ensureWorktree, memoryCheckoutRecords } from '../../src/git/git-worktrees.js';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';
import { makeRepoWithRemote, startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

const probe = await probeBubblewrap();

let harness: HarnessFixture | null = null;
let claude: ClaudeCodeFixture | null = null;
const scratch: string[] = [];
afterEach(async () => {
  await harness?.dispose();
  harness = null;
  await claude?.dispose();
  claude = null;
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
});

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-sec-readonly-'));
  scratch.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GIT_DIR;
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
}

/** Everything git metadata can show of the user's repository: refs, registered worktrees, the index. */
function repositoryState(repoPath: string): string {
  return [git(repoPath, 'for-each-ref', '--format=%(refname) %(objectname)'), git(repoPath, 'worktree', 'list', '--porcelain'), git(repoPath, 'status', '--porcelain')].join('\n--\n');
}

async function runSubagentsIn(space: Record<string, unknown>, finalTools: ReturnType<typeof reply>[]): Promise<{ repoPath: string; before: string }> {
  const { repoPath } = await makeRepoWithRemote(await scratchDir());
  const before = repositoryState(repoPath);
  harness = await startHarnessFixture({ space: { repoPath, ...space } });
  harness.model.script(
    reply().tool('task', { description: 'first look', prompt: 'look around [child]' }),
    reply().tool('task', { description: 'second look', prompt: 'look again [child]' }),
    ...finalTools,
  );
  harness.model.scriptFor((request) => request.lastUserText?.includes('[child]') === true, reply().text('child report one'), reply().text('child report two'));
  const runId = await harness.send('look at the code');
  const detail = await harness.waitForRun(runId, 30_000);
  expect(detail.run.state).toBe('completed');
  expect(detail.toolCalls.filter((call: any) => call.name === 'task').map((call: any) => call.isError)).toEqual([false, false]);
  const runs = (await harness.server.api('GET', `/api/workspaces/${harness.workspaceId}/runs`)).body.runs;
  expect(runs.filter((run: any) => run.parentRunId === runId)).toHaveLength(2);
  return { repoPath, before };
}

describe('subagents in read-only modes leave nothing behind (SEC-7)', () => {
  it('plan mode: two task calls make no branch, worktree or checkout', async () => {
    const { repoPath, before } = await runSubagentsIn({ mode: 'plan' }, [
      reply().tool('submit_plan', { goal: 'g', nodes: [{ key: 'a', title: 'A', description: 'd', dependsOn: [] }] }),
      reply().text('planned'),
    ]);
    expect(repositoryState(repoPath)).toBe(before);
    // One checkout: the conversation's. None per subagent call.
    expect(await readdir(join(harness!.workspaceDir, 'worktrees'))).toEqual([harness!.conversationId]);
  });

  it('review mode: two task calls make no branch, worktree or checkout', async () => {
    const { repoPath, before } = await runSubagentsIn({ kind: 'pullRequest' }, [reply().text('reviewed')]);
    expect(repositoryState(repoPath)).toBe(before);
    expect(await readdir(join(harness!.workspaceDir, 'worktrees'))).toEqual([harness!.conversationId]);
  });
});

describe.skipIf(!probe.available)('the read-only mount covers the checkout and its .git (SEC-7, SBX-1)', () => {
  it('built-in bash in a read-only mode can change neither files, refs, index nor config of the checkout', async () => {
    const root = await scratchDir();
    const { repoPath } = await makeRepoWithRemote(root);
    const workspaceDir = join(root, 'workspace');
    const checkout = await ensureWorktree({ repoPath, worktreesDir: join(workspaceDir, 'worktrees'), conversationId: 'cv_ro', records: memoryCheckoutRecords() });
    const sandbox = new CommandSandbox({ sandbox: 'auto' });
    const run = await sandbox.forRun({ worktreePath: checkout.path, readOnly: true, sharedObjectsDir: checkout.checkout!.sourceObjectsDir, workspaceDir, reach: [] });
    expect(run.description).toMatch(/^bubblewrap: worktree read-only/);
    const tree = new NodeWorktree(checkout.path, { wrapCommand: run.wrapCommand!, defaultEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...run.env } });
    const checkoutState = () => [git(checkout.path, 'for-each-ref'), git(checkout.path, 'config', '--list', '--local'), git(checkout.path, 'rev-parse', 'HEAD')].join('\n');
    const before = { checkout: checkoutState(), repo: repositoryState(repoPath) };
    // Where git itself would look for a hook of this checkout (a linked worktree's `.git` is a file, so `.git/hooks` names nothing).
    const hook = join(git(checkout.path, 'rev-parse', '--path-format=absolute', '--git-path', 'hooks'), 'post-commit');
    const result = await tree.exec(
      [
        'git log -1 --format=%s',
        'git -c user.name=a -c user.email=a@a commit --allow-empty -q -m sneaky',
        'git update-ref refs/heads/sneaky HEAD',
        'git branch another',
        'git config core.fsmonitor "touch /tmp/pwned"',
        `echo "#!/bin/sh" > ${hook}`,
        'touch new.txt',
        'echo done',
      ].join('; '),
      { timeoutMs: 20_000, maxOutputBytes: 20_000, signal: new AbortController().signal },
    );
    expect(result.stdout).toContain('initial');
    expect(result.stdout).toContain('done');
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(checkoutState()).toBe(before.checkout);
    expect(repositoryState(repoPath)).toBe(before.repo);
    // The file writes, checked one by one: the states above do not show an untracked file or a hook.
    expect(existsSync(join(checkout.path, 'new.txt'))).toBe(false);
    expect(existsSync(hook)).toBe(false);
  });

  it('Claude Code in plan mode runs on a read-only checkout and leaves the user repository as it was', async () => {
    claude = await startClaudeCodeFixture({ mode: 'plan', repo: true, transport: { sandbox: 'auto' } });
    const f = claude;
    const before = repositoryState(f.repoPath!);
    f.model.script(
      reply().tool('Bash', { command: 'git status --short; ls -a' }),
      reply().tool('mcp__control-center__submit_plan', { goal: 'Read-only plan', nodes: [{ key: 'one', title: 'One', description: 'Only step.', dependsOn: [] }] }),
      reply().text('Submitted.'),
    );
    const detail = await f.waitForRun(await f.send('plan'));
    expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree read-only/);
    expect(repositoryState(f.repoPath!)).toBe(before);
  });
});
