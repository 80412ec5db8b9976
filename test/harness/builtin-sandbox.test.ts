import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { CommandSandbox } from '../../src/sandbox/command-sandbox.js';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

const probe = await probeBubblewrap();
/** Where the escape test tries to write (as root, only the sandbox stops it); removed whatever happens. */
const ESCAPE_MARKER = `/etc/cc-escape-${process.pid}`;

let fixture: HarnessFixture | null = null;
const scratch: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
  rmSync(ESCAPE_MARKER, { force: true });
});

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-builtin-sbx-'));
  scratch.push(dir);
  return dir;
}

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);
const worktree = () => join(fixture!.workspaceDir, 'worktrees', fixture!.conversationId);

function remoteMain(remotePath: string): string {
  return execFileSync('git', ['rev-parse', 'refs/heads/main'], { cwd: remotePath, encoding: 'utf8' }).trim();
}

async function nextApproval(): Promise<any> {
  const event = await fixture!.operator!.waitFor((candidate) => candidate.event === 'approval.requested' && candidate.data.data.status === 'pending', 20_000);
  return event.data.data;
}

/**
 * A chat space whose repository has a local bare remote `origin`, and a script in the worktree that
 * commits and pushes. The script's `env -S` shebang is one the classifier does not read (SEC-5: it is
 * unseen code), and the operator allows `./push.sh` by command prefix, so the push inside it is
 * decided by the push proxy alone.
 */
async function startWithRepo(server: Record<string, unknown> = {}): Promise<{ remotePath: string }> {
  const { repoPath, remotePath } = await makeRepoWithRemote(await scratchDir());
  fixture = await startHarnessFixture({ space: { repoPath }, server });
  expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: './push.sh' }, decision: 'allow' })).status).toBe(201);
  fixture.model.script(
    reply().tool('write', { path: 'push.sh', content: '#!/usr/bin/env -S sh -e\ngit -c user.name=Agent -c user.email=agent@example.com commit --allow-empty -q -m "from a script"\ngit push origin HEAD:main\n' }),
    reply().tool('bash', { command: 'chmod +x push.sh && ./push.sh' }),
    reply().text('done'),
  );
  return { remotePath };
}

describe.skipIf(!probe.available)('built-in bash in bubblewrap (SBX-1)', () => {
  it('a write outside the worktree fails at the OS level even when the policy allows it; the operator token is unreadable', async () => {
    fixture = await startHarnessFixture({ space: { autonomy: 'actFreely' } });
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'fileWriteOutsideWorktree' }, decision: 'allow' });
    expect(rule.status).toBe(201);
    const dataRoot = fixture.server.dataRoot;
    fixture.model.script(
      reply().tool('bash', { command: `touch ${ESCAPE_MARKER}` }),
      reply().tool('bash', { command: `echo planted > ${join(dataRoot, 'planted.txt')}` }),
      reply().tool('bash', { command: `cat ${join(dataRoot, 'operator-token')}; ls -a ${dataRoot}` }),
      reply().tool('bash', { command: 'echo stays > inside.txt && cat inside.txt && grep CapEff /proc/self/status' }),
      reply().text('done'),
    );
    const detail = await fixture.waitForRun(await fixture.send('try to escape'));
    expect(detail.run.state).toBe('completed');
    // The default keeps the host network: egress is decided per command by policy (CAP-4).
    expect(detail.run.sandbox).toMatch(
      /^bubblewrap: worktree writable; rest of the filesystem read-only; \d+ hidden path\(s\); private \/tmp and HOME; network: host namespace \(network egress is decided per command by the policy engine\); limits: .+ per process; .+$/,
    );
    // The policy allowed every call and each one ran: the OS refused the escapes.
    expect(detail.toolCalls.map((call: any) => [call.decision, call.executed])).toEqual(Array(4).fill(['allow', true]));
    const outputs = detail.toolCalls.map((call: any) => call.output as string);
    expect(outputs[0]).toMatch(/cc-escape.*Read-only file system/);
    expect(outputs[1]).toMatch(/planted\.txt: Read-only file system/);
    expect(outputs[2]).toMatch(/operator-token: No such file or directory/);
    expect(outputs[2]).not.toContain(fixture.server.token);
    expect(outputs[3]).toMatch(/stays\nCapEff:\s+0+\n/);
    expect(existsSync(ESCAPE_MARKER)).toBe(false);
    expect(existsSync(join(dataRoot, 'planted.txt'))).toBe(false);
    expect(readFileSync(join(worktree(), 'inside.txt'), 'utf8')).toBe('stays\n');
  });

  it('with the loopback shell network a command reaches nothing outside the sandbox', async () => {
    fixture = await startHarnessFixture({ server: { builtinShellNetwork: 'loopback' } });
    const serverPort = new URL(fixture.server.url).port;
    fixture.model.script(
      reply().tool('bash', { command: `cat < /dev/tcp/127.0.0.1/${serverPort} || echo unreachable` }),
      reply().text('done'),
    );
    const detail = await fixture.waitForRun(await fixture.send('reach out'));
    expect(detail.run.sandbox).toMatch(/network: loopback ports none only; limits: /);
    expect(detail.toolCalls[0].output).toContain('unreachable');
  });

  it('the worktree mount follows the mode: writable in chat, read-only in read-only modes (CAP-5)', async () => {
    const workspaceDir = join(await scratchDir(), 'workspace');
    const path = join(workspaceDir, 'worktrees', 'cv_1');
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'file.txt'), 'original');
    const sandbox = new CommandSandbox({ sandbox: 'auto' });
    const exec = async (readOnly: boolean, command: string) => {
      const run = await sandbox.forRun({ worktreePath: path, readOnly, sharedObjectsDir: null, workspaceDir, reach: [] });
      const tree = new NodeWorktree(path, { wrapCommand: run.wrapCommand!, defaultEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...run.env } });
      return { description: run.description, result: await tree.exec(command, { timeoutMs: 10_000, maxOutputBytes: 10_000, signal: new AbortController().signal }) };
    };
    const readOnly = await exec(true, 'cat file.txt; echo changed > file.txt; touch new.txt');
    expect(readOnly.description).toMatch(/^bubblewrap: worktree read-only/);
    expect(readOnly.result.stdout).toBe('original');
    expect(readOnly.result.stderr).toMatch(/file\.txt: Read-only file system/);
    expect(existsSync(join(path, 'new.txt'))).toBe(false);
    const chat = await exec(false, 'echo changed > file.txt && touch new.txt');
    expect(chat.description).toMatch(/^bubblewrap: worktree writable/);
    expect(chat.result.exitCode).toBe(0);
    expect(readFileSync(join(path, 'file.txt'), 'utf8')).toBe('changed\n');
  });
});

describe('built-in bash pushes through the push proxy (POL-6)', () => {
  it('a push inside a script is held for approval and reaches the bare remote only once approved', async () => {
    const { remotePath } = await startWithRepo();
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'ask' });
    const before = remoteMain(remotePath);
    const runId = await fixture!.send('ship it');
    const approval = await nextApproval();
    expect(approval).toMatchObject({ kind: 'tool', runId, request: { toolName: 'git-push-proxy', summary: expect.stringContaining('git push origin main'), decidedBy: { scope: 'workspace', ruleId: rule.body.id } } });
    // Held: the proxy is still waiting on the gate. It records its decision only when the gate answers,
    // so a gate that let the push through without waiting has recorded it before the approval could be
    // read here; no fixed window, which a slow failure would pass.
    const session = fixture!.server.running.app.hookSessions.forRun(runId)!;
    expect(session.decisions.filter((entry) => entry.source === 'push')).toEqual([]);
    expect(remoteMain(remotePath)).toBe(before);
    // The run token in bash's environment serves the push proxy only, not the Claude Code hook route.
    expect(session.pushOnly).toBe(true);
    const hook = await fetch(`${fixture!.server.url}/api/hooks/pre-tool-use`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'true' } }),
    });
    expect(hook.status).toBe(404);
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    const detail = await fixture!.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/pushes to origin through the push proxy$/);
    if (probe.available) expect(detail.run.sandbox).toMatch(/^bubblewrap: worktree writable;.*network: host namespace.*pushes to origin through the push proxy/);
    // The script itself was allowed (unseen code, covered by the operator's `./push.sh` prefix rule); the proxy decided the push.
    expect(detail.toolCalls[1]).toMatchObject({ name: 'bash', decision: 'allow', executed: true, isError: false });
    expect(session.decisions.filter((entry) => entry.source === 'push').map((entry) => [entry.allow, entry.result.decision])).toEqual([[true, 'ask']]);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: worktree(), encoding: 'utf8' }).trim();
    expect(remoteMain(remotePath)).toBe(head);
    expect(execFileSync('git', ['log', '-1', '--format=%s', 'main'], { cwd: remotePath, encoding: 'utf8' }).trim()).toBe('from a script');
    // The run-scoped token and the proxy's session ended with the run.
    expect(fixture!.server.running.app.hookSessions.forRun(runId)).toBeNull();
    expect(fixture!.server.running.app.runTokens.authenticate(session.token)).toBeNull();
  });

  it('a rejected push inside a script leaves the remote unchanged, and the reason reaches the model', async () => {
    const { remotePath } = await startWithRepo();
    await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'ask' });
    const before = remoteMain(remotePath);
    const runId = await fixture!.send('ship it');
    const approval = await nextApproval();
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not on main' });
    const detail = await fixture!.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(remoteMain(remotePath)).toBe(before);
    expect(detail.toolCalls[1]).toMatchObject({ name: 'bash', executed: true, isError: true });
    expect(detail.toolCalls[1].output).toMatch(/pre-receive hook declined|remote rejected/);
    expect(detail.toolCalls[1].output).toContain('not on main');
  });

  it('without a sandbox backend the run records none: and pushes still go through the proxy (SBX-2)', async () => {
    const { remotePath } = await startWithRepo({ builtinSandbox: 'none' });
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'git push origin main' }, decision: 'deny' });
    const before = remoteMain(remotePath);
    const detail = await fixture!.waitForRun(await fixture!.send('ship it'));
    expect(detail.run.sandbox).toMatch(/^none: disabled by configuration; fallback \(SBX-2\): .*; pushes to origin through the push proxy$/);
    expect(detail.toolCalls[1].output).toContain(`decided by workspace rule ${rule.body.id}`);
    expect(remoteMain(remotePath)).toBe(before);
    expect((await api('GET', '/approvals')).body.approvals).toEqual([]);
  });
});
