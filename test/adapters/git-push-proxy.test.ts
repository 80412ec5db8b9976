import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportAction, TransportGateResult } from '../../src/adapters/agent-transport.js';
import type { HookSession } from '../../src/core/hook-sessions.js';
import { discoverPushRemotes, gitPushEnvironment, parseReceivePackCommands, pushCommandLine } from '../../src/git/git-push-proxy.js';
import { reply } from '../support/scripted-model-server.js';
import { makeRepoWithRemote, startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { gitText as git, pendingApprovals, pushToOrigin, remoteRef } from '../support/proxied-push.js';

let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const IDENTITY = ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com'];

async function decide(f: ClaudeCodeFixture, approvalId: string, decision: 'approve' | 'reject', reason?: string): Promise<void> {
  const response = await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approvalId}/decision`, { decision, ...(reason ? { reason } : {}) });
  expect(response.status).toBe(200);
}

describe('git push proxy (POL-6)', () => {
  it('a push is asked once, at the hook, and forwarded to the bare remote once approved (one approval per push)', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', repo: true, transport: { sandbox: 'auto' } });
    const f = fixture;
    f.model.script(
      reply().tool('Bash', { command: `git ${IDENTITY.join(' ')} commit --allow-empty -m "agent work" && git rev-parse HEAD` }),
      reply().tool('Bash', { command: 'git push origin HEAD:refs/heads/feature' }),
      reply().text('Pushed.'),
    );
    const runId = await f.send('commit and push');
    // The hook sees `git push` (gitPush → ask by default): the operator's one card for this push.
    const [hookApproval] = await pendingApprovals(f, 1);
    expect(hookApproval.title).toMatch(/git push origin HEAD:refs\/heads\/feature/);
    expect(remoteRef(f.remotePath!, 'refs/heads/feature')).toBeNull();
    await decide(f, hookApproval.id, 'approve');
    // POL-6: the proxy honours that approval for the matching push instead of asking a second time.
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    const approvals = (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals;
    expect(approvals.map((approval: any) => approval.id)).toEqual([hookApproval.id]);
    const head = git(f.worktreePath(), 'rev-parse', 'HEAD');
    expect(remoteRef(f.remotePath!, 'refs/heads/feature')).toBe(head);
    expect(git(f.remotePath!, 'log', '-1', '--format=%s', 'feature')).toBe('agent work');
    const push = f.decisions.find((entry) => entry.source === 'push');
    expect(push).toMatchObject({ allow: true, action: { kind: 'command', command: 'git push origin feature' }, result: { decision: 'ask', reason: expect.stringContaining('approved `git push origin HEAD:refs/heads/feature`') } });
  });

  it('a push hidden in a script is still caught by the proxy; rejected, the real remote is unchanged', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', repo: true, transport: { sandbox: 'auto' } });
    const f = fixture;
    const before = remoteRef(f.remotePath!, 'refs/heads/main');
    // SEC-5: a shell script the classifier can read is classified (its push would ask at the hook);
    // this one has an `env -S` shebang it does not read, so it is unseen code the operator allowed by prefix.
    await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: './ship.sh' }, decision: 'allow' });
    f.model.script(
      reply().tool('Write', { file_path: join(f.worktreePath(), 'ship.sh'), content: `#!/usr/bin/env -S sh\ngit ${IDENTITY.join(' ')} commit --allow-empty -q -m sneaky\ngit push origin HEAD:refs/heads/main\n` }),
      reply().tool('Bash', { command: 'chmod +x ship.sh && ./ship.sh' }),
      reply().text('Tried.'),
    );
    const runId = await f.send('ship it');
    // The hook saw only `./ship.sh` (unseen code, allowed by the operator's prefix rule); the proxy saw the push.
    const [approval] = await pendingApprovals(f, 1);
    expect(approval.title).toMatch(/git push origin main/);
    await decide(f, approval.id, 'reject', 'not on main');
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(remoteRef(f.remotePath!, 'refs/heads/main')).toBe(before);
    const result = f.model.requests.filter((request) => request.path.startsWith('/v1/messages'))[2]!.lastToolResult!.content;
    expect(result).toMatch(/remote rejected|pre-receive hook declined/);
    expect(result).toMatch(/not on main/);
    expect(f.decisions.find((entry) => entry.toolName === 'Bash')?.result.decision).toBe('allow');
  }, 90_000);
});

describe('git push proxy decisions (POL-1, POL-3)', () => {
  it('command-prefix rules decide proxied pushes like typed ones, without asking', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const allow = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'git push origin feature' }, decision: 'allow' });
    const deny = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'git push origin main' }, decision: 'deny' });
    const { repoPath, remotePath } = await makeRepoWithRemote(join(f.dataRoot, 'direct'));
    git(repoPath, ...IDENTITY, 'commit', '--allow-empty', '-q', '-m', 'direct work');
    const runId = `run_direct_${Date.now()}`;
    const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId, agentId: f.agentId });
    const remotes = await discoverPushRemotes(repoPath);
    const gate = async (action: TransportAction): Promise<TransportGateResult> => {
      const verdict = await f.app.policy.decideCommand(f.workspaceId, { mode: 'chat', autonomy: 'actWithApproval', spaceId: f.spaceId, agentId: f.agentId }, action.kind === 'command' ? action.command : '', 'git-push-proxy');
      return { allow: verdict.decision === 'allow', decision: verdict.decision, reason: verdict.explanation, decidedBy: verdict.decidedBy, classes: verdict.classes };
    };
    const session: HookSession = {
      token,
      workspaceId: f.workspaceId,
      runId,
      mode: 'chat',
      worktreePath: repoPath,
      gate,
      signal: new AbortController().signal,
      pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
      pushStagingDir: join(f.dataRoot, 'staging'),
      decisions: [],
    };
    const unregister = f.app.hookSessions.register(session);
    try {
      const env = { ...process.env, ...gitPushEnvironment(f.url, token, remotes) };
      const push = (refspec: string) => pushToOrigin(repoPath, env, refspec);
      const head = git(repoPath, 'rev-parse', 'HEAD');
      const featurePush = await push('HEAD:refs/heads/feature');
      expect(featurePush.code).toBe(0);
      expect(remoteRef(remotePath, 'refs/heads/feature')).toBe(head);
      const mainBefore = remoteRef(remotePath, 'refs/heads/main');
      const mainPush = await push('HEAD:refs/heads/main');
      expect(mainPush.code).not.toBe(0);
      expect(mainPush.stderr).toMatch(new RegExp(`decided by workspace rule ${deny.body.id}`));
      expect(remoteRef(remotePath, 'refs/heads/main')).toBe(mainBefore);
      expect(session.decisions.map((entry) => [entry.action.kind === 'command' ? entry.action.command : '', entry.allow, entry.result.decidedBy.ruleId])).toEqual([
        ['git push origin feature', true, allow.body.id],
        ['git push origin main', false, deny.body.id],
      ]);
      expect((await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals).toHaveLength(0);
    } finally {
      unregister();
      f.app.runTokens.revoke(runId);
    }
  });

  it('parses the ref updates of a receive-pack request and names them as a push command', () => {
    const zero = '0'.repeat(40);
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const body = Buffer.from(`${pkt(`${zero} ${a} refs/heads/feature\0 report-status side-band-64k\n`)}${pkt(`${b} ${zero} refs/heads/old\n`)}0000PACK...`);
    const updates = parseReceivePackCommands(body);
    expect(updates).toEqual([
      { old: zero, new: a, ref: 'refs/heads/feature' },
      { old: b, new: zero, ref: 'refs/heads/old' },
    ]);
    expect(pushCommandLine('origin', updates)).toBe('git push origin feature --delete old');
    expect(() => parseReceivePackCommands(Buffer.from(pkt('garbage\n')))).toThrow();
  });
});
