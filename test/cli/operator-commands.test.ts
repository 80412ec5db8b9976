/**
 * `control-center approvals|plans|runs` against a real server started with `serve`, a
 * real data directory and the scripted model server: lists, `--json`, decisions, and agent text
 * that cannot forge table rows or drive the terminal.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { makeDataRoot } from '../support/test-server.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let dataRoot: string;
let serverProcess: ChildProcess;
let url: string;
let token: string;
let model: ScriptedModelServer;
let ws: string;
/** POL-4 fails closed when no operator is connected: this test's operator keeps the live stream open. */
const operatorStream = new AbortController();

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, '--data-dir', dataRoot, ...args]);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}/api/workspaces/${ws}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.status === 204 ? null : response.json();
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 1000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function conversationIn(picker: string, name: string): Promise<string> {
  const space = await api('POST', '/spaces', { name });
  await api('PATCH', `/spaces/${space.id}`, { picker });
  return (await api('POST', `/spaces/${space.id}/conversations`, { title: name })).id;
}

beforeAll(async () => {
  dataRoot = await makeDataRoot();
  model = await startScriptedModelServer();
  serverProcess = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataRoot], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let output = '';
    serverProcess.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('curl')) resolve(match[1]!);
    });
    serverProcess.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
  const workspaces = (await (await fetch(`${url}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as { workspaces: Array<{ id: string }> };
  ws = workspaces.workspaces[0]!.id;
  const stream = await fetch(`${url}/api/workspaces/${ws}/events`, { headers: { authorization: `Bearer ${token}` }, signal: operatorStream.signal });
  void stream.body?.pipeTo(new WritableStream()).catch(() => undefined);
  await api('PATCH', '/settings', { apiKeys: { anthropic: 'scripted-key' }, baseUrls: { anthropic: model.url } });
  await poll(async () => (await api('GET', '/agents')).agents.length, (count) => count >= 5);
}, 120_000);

afterAll(async () => {
  operatorStream.abort();
  serverProcess?.kill('SIGTERM');
  if (serverProcess) await new Promise((resolve) => serverProcess.once('exit', resolve));
  await model?.close();
  await rm(dataRoot, { recursive: true, force: true });
});

// Each test drives a dozen real CLI processes against a real server: minutes on a loaded CI machine, not seconds.
describe('control-center approvals | plans | runs', { timeout: 180_000 }, () => {
  it('approvals lists a pending approval (text and --json) and approves it; runs shows the run with state and cost', async () => {
    expect((await cli('approvals')).stdout).toContain('Nothing waiting for a decision.');
    const conversationId = await conversationIn('Agent', 'Cleanup');
    model.script(reply().tool('bash', { command: 'rm -f notes.txt' }), reply().text('Removed notes.txt.'));
    await api('POST', `/conversations/${conversationId}/messages`, { text: 'delete notes.txt' });
    const pending = await poll(async () => (await api('GET', '/approvals?status=pending')).approvals, (list: any[]) => list.length === 1);

    const listed = await cli('approvals', '--json');
    expect(listed.code).toBe(0);
    const body = JSON.parse(listed.stdout);
    expect(body.approvals.map((approval: any) => approval.id)).toEqual([pending[0].id]);
    expect(body.questions).toEqual([]);
    const text = await cli('approvals');
    expect(text.stdout).toContain(pending[0].id);
    expect(text.stdout).toContain('rm -f notes.txt');

    const approved = await cli('approvals', 'approve', pending[0].id);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`approved ${pending[0].id}`);
    expect((await api('GET', `/approvals?conversationId=${conversationId}`)).approvals[0].status).toBe('approved');
    const again = await cli('approvals', 'approve', pending[0].id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already approved/);

    const runs = await poll(async () => JSON.parse((await cli('runs', '--conversation', conversationId, '--json')).stdout), (list: any[]) => list[0]?.state === 'completed');
    expect(runs).toHaveLength(1);
    expect(typeof runs[0].costUsd).toBe('number');
    const runText = await cli('runs', '--conversation', conversationId);
    // The state in words ("finished"), after the agent, mode and plan step columns.
    expect(runText.stdout).toMatch(new RegExp(`${runs[0].id}\\s+.*\\sfinished\\s`));
    expect(runText.stdout).toContain('$');
  });

  it('approvals answers a question; reject passes the reason', async () => {
    const conversationId = await conversationIn('Agent', 'Questions');
    model.script(reply().tool('ask_user', { questions: [{ question: 'Which port?' }] }), reply().text('Port noted.'));
    await api('POST', `/conversations/${conversationId}/messages`, { text: 'set up the server' });
    const question = (await poll(async () => JSON.parse((await cli('approvals', '--json')).stdout).questions, (list: any[]) => list.length === 1))[0];
    expect((await cli('approvals')).stdout).toContain('Which port?');
    const answered = await cli('approvals', 'answer', question.id, '8080');
    expect(answered.code).toBe(0);
    await poll(async () => (await api('GET', `/conversations/${conversationId}/messages`)).messages.map((message: any) => message.content).join('\n'), (all: string) => all.includes('Port noted.'));

    model.script(reply().tool('bash', { command: 'rm -f keep.txt' }), reply().text('Left it.'));
    await api('POST', `/conversations/${conversationId}/messages`, { text: 'delete keep.txt' });
    const pending = (await poll(async () => (await api('GET', '/approvals?status=pending')).approvals, (list: any[]) => list.length === 1))[0];
    const rejected = await cli('approvals', 'reject', pending.id, '--reason', 'keep it', '--json');
    expect(JSON.parse(rejected.stdout)).toMatchObject({ id: pending.id, status: 'rejected', reason: 'keep it' });
  });

  it('plans lists, shows and approves a plan; a hostile goal cannot forge rows or send escape codes', async () => {
    const conversationId = await conversationIn('Plan', 'Feature');
    const goal = 'Ship it\nplan_fake  completed  9/9 steps\u001b[31m red';
    model.script(
      reply().tool('submit_plan', {
        goal,
        nodes: [
          { key: 'one', title: 'First', description: 'first', dependsOn: [] },
          { key: 'two', title: 'Second', description: 'second', dependsOn: ['one'] },
        ],
      }),
      reply().text('Submitted.'),
    );
    await api('POST', `/conversations/${conversationId}/messages`, { text: 'plan it' });
    const plans = await poll(async () => JSON.parse((await cli('plans', '--conversation', conversationId, '--json')).stdout), (list: any[]) => list.length === 1);
    expect(plans[0]).toMatchObject({ status: 'proposed', goal });

    const listed = await cli('plans');
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line.includes('plan_fake'))).toHaveLength(1);
    expect(lines.find((line) => line.includes('plan_fake'))).toContain(plans[0].id);
    expect(listed.stdout).not.toContain('\u001b');

    const shown = await cli('plans', 'show', plans[0].id);
    expect(shown.stdout).toMatch(/one\s+pending\s+First/);
    expect(shown.stdout).toContain('(after one)');
    expect(shown.stdout).not.toContain('\u001b');

    const approved = await cli('plans', 'approve', plans[0].id, '--json');
    expect(approved.code).toBe(0);
    expect(['executing', 'completed']).toContain(JSON.parse(approved.stdout).status);
    const missing = await cli('plans', 'approve', 'plan_nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('plan_nope');
  });
});
