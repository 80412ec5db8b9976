import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PushGrants, pushTargets } from '../../src/core/push-grants.js';
import { classifyShellCommand } from '../../src/core/shell/classify-command.js';
import { loadShellParser } from '../../src/core/shell/shell-parser.js';
import { proxyPush, pushCommandLine } from '../../src/git/git-push-proxy.js';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * POL-6, decided 2026-11-30: the operator is asked once per push. An approval of a `git push` at the
 * run's gate is a short-lived, single-use grant the push proxy honours for the matching push of the
 * same run; a push no gate saw is asked at the proxy; a deny stays a deny.
 */

let fixture: HarnessFixture | null = null;
const scratch: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);
const worktree = () => join(fixture!.workspaceDir, 'worktrees', fixture!.conversationId);
const IDENTITY = '-c user.name=Agent -c user.email=agent@example.com';

function remoteRef(remotePath: string, ref: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', ref], { cwd: remotePath, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

async function nextApproval(seen: readonly string[] = []): Promise<any> {
  const event = await fixture!.operator!.waitFor(
    (candidate) => candidate.event === 'approval.requested' && candidate.data.data.status === 'pending' && !seen.includes(candidate.data.data.id),
    20_000,
  );
  return event.data.data;
}

async function startWithRepo(): Promise<{ remotePath: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-push-grant-'));
  scratch.push(dir);
  const { repoPath, remotePath } = await makeRepoWithRemote(dir);
  fixture = await startHarnessFixture({ space: { repoPath } });
  expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'ask' })).status).toBe(201);
  return { remotePath };
}

describe('one approval per push through the built-in bash tool (POL-6)', () => {
  it('approving `git push` once lets the push through the proxy; a later push from a script is asked again and, rejected, changes nothing', async () => {
    const { remotePath } = await startWithRepo();
    // The script's `env -S` shebang is unseen code the operator allows by prefix: only the proxy sees its push.
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: './again.sh' }, decision: 'allow' })).status).toBe(201);
    fixture!.model.script(
      reply().tool('bash', { command: `git ${IDENTITY} commit --allow-empty -q -m "approved work" && git push origin HEAD:main` }),
      reply().tool('write', { path: 'again.sh', content: `#!/usr/bin/env -S sh -e\ngit ${IDENTITY} commit --allow-empty -q -m "sneaky"\ngit push origin HEAD:main\n` }),
      reply().tool('bash', { command: 'chmod +x again.sh && ./again.sh' }),
      reply().text('done'),
    );
    const runId = await fixture!.send('commit and push');
    const first = await nextApproval();
    expect(first).toMatchObject({ kind: 'tool', runId, request: { toolName: 'bash', summary: expect.stringContaining('git push origin HEAD:main') } });
    expect((await api('POST', `/approvals/${first.id}/decision`, { decision: 'approve' })).status).toBe(200);
    // The grant is used up by the approved push: the script's push to the same remote and ref is asked at the proxy.
    const second = await nextApproval([first.id]);
    expect(second).toMatchObject({ kind: 'tool', runId, request: { toolName: 'git-push-proxy', summary: expect.stringContaining('git push origin main') } });
    const approvedHead = remoteRef(remotePath, 'refs/heads/main');
    expect(execFileSync('git', ['log', '-1', '--format=%s', 'main'], { cwd: remotePath, encoding: 'utf8' }).trim()).toBe('approved work');
    expect((await api('POST', `/approvals/${second.id}/decision`, { decision: 'reject', reason: 'one push was enough' })).status).toBe(200);
    const detail = await fixture!.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(remoteRef(remotePath, 'refs/heads/main')).toBe(approvedHead);
    expect(detail.toolCalls[0]).toMatchObject({ name: 'bash', executed: true, isError: false });
    expect(detail.toolCalls[2]).toMatchObject({ name: 'bash', executed: true, isError: true });
    expect(detail.toolCalls[2].output).toContain('one push was enough');
    // Exactly two cards in the whole run: one for the approved push, one for the push the gate never saw.
    const all = (await api('GET', '/approvals')).body.approvals as any[];
    expect(all.filter((approval) => approval.runId === runId).map((approval) => approval.request.toolName).sort()).toEqual(['bash', 'git-push-proxy']);
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: worktree(), encoding: 'utf8' }).trim()).not.toBe(approvedHead);
  });

  it('an approval of `git push origin HEAD:feature` does not cover a push, in the same call, of the refs `feature;x` and release', async () => {
    const { remotePath } = await startWithRepo();
    // The script is unseen code the operator allows by prefix; the approved push itself never runs
    // (`true ||`), so its grant is still there when the script pushes through the proxy.
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: './sneak.sh' }, decision: 'allow' })).status).toBe(201);
    fixture!.model.script(
      reply().tool('write', { path: 'sneak.sh', content: `#!/usr/bin/env -S sh -e\ngit ${IDENTITY} commit --allow-empty -q -m "sneaky"\ngit push origin 'HEAD:refs/heads/feature;x' HEAD:refs/heads/release\n` }),
      reply().tool('bash', { command: 'chmod +x sneak.sh && { true || git push origin HEAD:feature; } && ./sneak.sh' }),
      reply().text('done'),
    );
    const runId = await fixture!.send('push');
    const first = await nextApproval();
    expect(first).toMatchObject({ kind: 'tool', runId, request: { toolName: 'bash' } });
    expect((await api('POST', `/approvals/${first.id}/decision`, { decision: 'approve' })).status).toBe(200);
    // The proxy's push is asked, and its card shows the hostile ref as one word.
    const second = await nextApproval([first.id]);
    expect(second).toMatchObject({ kind: 'tool', runId, request: { toolName: 'git-push-proxy', summary: expect.stringContaining(`git push origin 'feature;x' release`) } });
    expect((await api('POST', `/approvals/${second.id}/decision`, { decision: 'reject', reason: 'not approved' })).status).toBe(200);
    const detail = await fixture!.waitForRun(runId);
    expect(detail.toolCalls[1]).toMatchObject({ name: 'bash', executed: true, isError: true });
    expect(remoteRef(remotePath, 'refs/heads/release')).toBeNull();
    expect(remoteRef(remotePath, 'refs/heads/feature;x')).toBeNull();
  });

  it('an approval at the gate never turns a deny at the proxy into an allow', async () => {
    const { remotePath } = await startWithRepo();
    const before = remoteRef(remotePath, 'refs/heads/main');
    // `git push origin HEAD:main` is not covered by the deny's prefix, so the gate asks; the proxy sees `git push origin main`.
    const deny = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'git push origin main' }, decision: 'deny' });
    expect(deny.status).toBe(201);
    fixture!.model.script(reply().tool('bash', { command: `git ${IDENTITY} commit --allow-empty -q -m "work" && git push origin HEAD:main` }), reply().text('done'));
    const runId = await fixture!.send('push');
    const approval = await nextApproval();
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    const detail = await fixture!.waitForRun(runId);
    expect(remoteRef(remotePath, 'refs/heads/main')).toBe(before);
    expect(detail.toolCalls[0]).toMatchObject({ name: 'bash', executed: true, isError: true });
    expect(detail.toolCalls[0].output).toContain(`rule ${deny.body.id}`);
    expect(((await api('GET', '/approvals')).body.approvals as any[]).filter((entry) => entry.runId === runId)).toHaveLength(1);
  });
});

describe('push grants (POL-6)', () => {
  beforeAll(loadShellParser);
  const UPDATE = { old: '0'.repeat(40), new: '1'.repeat(40) };
  const DELETE = { old: '1'.repeat(40), new: '0'.repeat(40) };
  const updates = (...refs: string[]) => refs.map((ref) => ({ ...UPDATE, ref }));
  const proxy = (remote: string, ...refs: string[]) => proxyPush(remote, updates(...refs));
  const ref = (name: string) => ({ ref: name, delete: false });

  it('read the remote and destination refs of the pushes a command line names literally, as the shell parses it', () => {
    expect(pushTargets('git commit -m x && git -C . push --force origin HEAD:refs/heads/feature +main v1')).toEqual([{ remote: 'origin', refs: [ref('refs/heads/feature'), ref('main'), ref('v1')] }]);
    expect(pushTargets('git push origin "feature"')).toEqual([{ remote: 'origin', refs: [ref('feature')] }]);
    expect(pushTargets('git push origin --delete old; git push upstream main :gone')).toEqual([
      { remote: 'origin', refs: [{ ref: 'old', delete: true }] },
      { remote: 'upstream', refs: [ref('main'), { ref: 'gone', delete: true }] },
    ]);
    // Separators inside quotes and comments are not commands: no second grant, and none for `main`.
    expect(pushTargets('git push origin feature; echo "; git push x"')).toEqual([{ remote: 'origin', refs: [ref('feature')] }]);
    expect(pushTargets('git push origin feature # ; git push origin main')).toEqual([{ remote: 'origin', refs: [ref('feature')] }]);
    // Whatever git would choose itself, or a run-time value, names nothing: no grant, the proxy asks.
    for (const unnamed of ['git push', 'git push origin', 'git push origin HEAD', 'git push origin @', 'git push "$REMOTE" main', 'git push origin $(git branch --show-current)', 'git push --all origin', 'git push --mirror origin', 'git push --tags origin main', 'git push --repo=x origin main', 'git push origin "refs/heads/*:refs/heads/*"', 'git status && echo git push', 'git push origin main "unterminated']) {
      expect(pushTargets(unnamed), unnamed).toEqual([]);
    }
  });

  it('covers the matching push once, and only within its lifetime', () => {
    let now = 1_000;
    const grants = new PushGrants(120_000, () => now);
    expect(grants.grant('git push origin HEAD:feature')).toBe(1);
    expect(grants.take(proxy('upstream', 'refs/heads/feature'))).toBeNull();
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBeNull();
    expect(grants.take(proxy('origin', 'refs/heads/feature', 'refs/heads/main'))).toBeNull();
    expect(grants.take(proxy('origin', 'refs/heads/feature'))).toBe('git push origin HEAD:feature');
    expect(grants.take(proxy('origin', 'refs/heads/feature'))).toBeNull();
    grants.grant('git push origin main');
    now += 120_000;
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBeNull();
    // A command that pushes nothing, or names nothing, grants nothing.
    expect(grants.grant('git status')).toBe(0);
    expect(grants.grant('git push')).toBe(0);
    expect(grants.grant('git push origin HEAD')).toBe(0);
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBeNull();
  });

  it('never let a push approval delete a ref, and a delete approval only delete that ref', () => {
    const grants = new PushGrants();
    const deleteMain = proxyPush('origin', [{ ...DELETE, ref: 'refs/heads/main' }]);
    grants.grant('git push origin main');
    expect(grants.take(deleteMain)).toBeNull();
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBe('git push origin main');
    grants.grant('git push origin --delete main');
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBeNull();
    expect(grants.take(proxyPush('origin', [{ ...DELETE, ref: 'refs/heads/other' }]))).toBeNull();
    expect(grants.take(deleteMain)).toBe('git push origin --delete main');
  });

  it('end with the call that was approved', () => {
    const grants = new PushGrants();
    grants.grant('git push origin main', 'call_1');
    grants.grant('git push origin main', 'call_2');
    grants.revoke('call_1');
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBe('git push origin main');
    expect(grants.take(proxy('origin', 'refs/heads/main'))).toBeNull();
  });

  it('a ref name with shell metacharacters is one quoted word of the decision line, and a grant is matched on the parsed refs', () => {
    const line = pushCommandLine('origin', updates('refs/heads/feature;x', 'refs/heads/main', 'refs/heads/#y', "refs/heads/a'b&&c"));
    expect(line).toBe(`git push origin 'feature;x' main '#y' 'a'\\''b&&c'`);
    const parsed = classifyShellCommand(line).subcommands;
    expect(parsed.map((command) => command.argv)).toEqual([['git', 'push', 'origin', 'feature;x', 'main', '#y', "a'b&&c"]]);
    // A deleted ref is quoted too, after `--delete`.
    expect(pushCommandLine('origin', [{ ...DELETE, ref: 'refs/heads/old|x' }])).toBe(`git push origin --delete 'old|x'`);
    const grants = new PushGrants();
    grants.grant('git push origin feature');
    expect(grants.take(proxy('origin', 'refs/heads/feature;x', 'refs/heads/main'))).toBeNull();
    expect(grants.take(proxy('origin', 'refs/heads/feature;x'))).toBeNull();
    expect(grants.take(proxy('origin', 'refs/heads/feature'))).toBe('git push origin feature');
  });

  it('belong to one run: a second run gate has its own, empty set', () => {
    const mine = new PushGrants();
    const theirs = new PushGrants();
    mine.grant('git push origin main');
    expect(theirs.take(proxy('origin', 'refs/heads/main'))).toBeNull();
    expect(mine.take(proxy('origin', 'refs/heads/main'))).toBe('git push origin main');
  });
});
