/**
 * `control-center chat` as a real child process against a real server, a real workspace
 * and the scripted model: a turn streamed in order, `--json` NDJSON, an approval printed with its id
 * and decided by a second client, an approval decided inline at a pseudo-terminal (util-linux
 * `script`), Ctrl-C cancelling the run, and bad flags refused with exit code 2 changing nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let server: TestServer;
let model: ScriptedModelServer;
let ws: string;

interface Chat {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number>;
  /** Resolves when the combined output matches. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

function startChild(command: string, args: string[], env: Record<string, string> = {}): Chat {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, CONTROL_CENTER_PROGRESS_MS: '200', ...env } });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: RegExp; resolve: (match: RegExpExecArray) => void }> = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout + stderr);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    check();
  });
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : -1))));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        check();
        void exited.then(() => setTimeout(() => reject(new Error(`exited before ${pattern}: ${stdout}\n---\n${stderr}`)), 200));
      }),
  };
}

function chat(...args: string[]): Chat {
  return startChild(process.execPath, [...CLI, '--url', server.url, '--token', server.token, 'chat', '--workspace', ws, ...args]);
}

/** The CLI with a pseudo-terminal as stdin/stdout (util-linux `script`); what the test writes is typed. */
function chatAtTerminal(...args: string[]): Chat {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, ...CLI, '--url', server.url, '--token', server.token, 'chat', '--workspace', ws, ...args].map(quote).join(' ');
  return startChild('script', ['-qfec', command, '/dev/null']);
}

async function finished(run: Chat): Promise<{ code: number; stdout: string; stderr: string }> {
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await server.api(method, `/api/workspaces/${ws}${path}`, body);
  return response.body;
}

beforeAll(async () => {
  server = await startTestServer();
  model = await startScriptedModelServer();
  ws = (await createSeededWorkspace(server, 'Chatty')).id;
  await api('PATCH', '/settings', { apiKeys: { anthropic: 'scripted-key' }, baseUrls: { anthropic: model.url } });
}, 120_000);

afterAll(async () => {
  await model?.close();
  await server?.dispose();
});

describe('control-center chat', () => {
  it('a new chat is a new space; the turn streams text, the tool call and its result in order; agent text cannot send escape codes', async () => {
    const spacesBefore = (await api('GET', '/spaces')).spaces.length;
    model.script(reply().text('Let me look.\u001b[31m').tool('bash', { command: 'ls' }), reply().text('Done listing.'));
    const result = await finished(chat('list the files'));
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    const order = ['Let me look.', '● bash  ls', '⎿ ok', 'Done listing.'].map((part) => out.indexOf(part));
    expect(order.every((index) => index >= 0), out).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(out).not.toContain('\u001b');
    expect(result.stderr).toMatch(/completed/);

    const spaces = (await api('GET', '/spaces')).spaces;
    expect(spaces).toHaveLength(spacesBefore + 1);
    const created = spaces.find((space: any) => space.name.startsWith('Chat '));
    expect(created).toMatchObject({ mode: 'chat', autonomy: 'actWithApproval' });
    const conversations = (await api('GET', `/spaces/${created.id}/conversations`)).conversations;
    expect(conversations).toHaveLength(1);
    expect(conversations[0].title).toBe('list the files');
  });

  it('--json prints one parseable event per line, from the posted message to the run ending; --space adds a conversation there', async () => {
    const space = await api('POST', '/spaces', { name: 'Json room' });
    model.script(reply().tool('bash', { command: 'pwd' }), reply().text('All done.'));
    const result = await finished(chat('--space', 'json room', '--mode', 'autopilot', '--json', 'where am I'));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'chat.posted', data: { spaceId: space.id } });
    const runId = lines[0].data.runId;
    const types = lines.map((line: any) => (line.type === 'run.event' ? `run.event:${line.data.event.type}` : line.type));
    expect(types).toContain('run.event:tool_call_start');
    expect(types.indexOf('run.event:tool_call_start')).toBeLessThan(types.indexOf('run.event:tool_call_end'));
    const last = lines.at(-1);
    expect(last).toMatchObject({ type: 'run.updated', data: { id: runId, state: 'completed' } });
    expect(lines.filter((line: any) => line.type === 'run.event').every((line: any) => line.data.runId === runId)).toBe(true);
    expect((await api('GET', `/spaces/${space.id}`)).picker).toBe('Autopilot');
  });

  it('without a terminal an approval is printed with its id and the command that decides it; a second client decides it and the turn ends', async () => {
    model.script(reply().tool('bash', { command: 'rm -f notes.txt' }), reply().text('Removed notes.txt.'));
    const run = chat('delete notes.txt');
    const [, approvalId] = await run.waitFor(/control-center approvals approve (\S+)/);
    // stdout and stderr are separate pipes: the transcript line may arrive after the hint.
    await run.waitFor(new RegExp(`approval ${approvalId}: .*rm -f notes\\.txt`));
    await run.waitFor(/… waiting for approval/);
    const decided = await server.api('POST', `/api/workspaces/${ws}/approvals/${approvalId}/decision`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    const result = await finished(run);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`${approvalId} approved`));
    expect(result.stdout.indexOf('approved')).toBeLessThan(result.stdout.indexOf('Removed notes.txt.'));
  });

  it('at a terminal the approval is asked inline and decided through the API', async () => {
    model.script(reply().tool('bash', { command: 'rm -f old.log' }), reply().text('Cleaned up.'));
    const run = chatAtTerminal('clean up old.log');
    await run.waitFor(/Approve\? \[y\]es/);
    run.child.stdin!.write('y\r');
    const result = await finished(run);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/approved/);
    expect(result.stdout).toContain('Cleaned up.');
    const approvals = (await api('GET', '/approvals?status=approved')).approvals;
    expect(approvals.some((approval: any) => approval.request.command === 'rm -f old.log' || JSON.stringify(approval.request).includes('old.log'))).toBe(true);
  });

  it('at a terminal a question is asked inline; a number picks that option', async () => {
    model.script(reply().tool('ask_user', { questions: [{ question: 'Which port?', options: ['3000', '8080'] }] }), reply().text('Port noted.'));
    const run = chatAtTerminal('set up the server');
    await run.waitFor(/2\) 8080/);
    await run.waitFor(/Which port\? > /);
    run.child.stdin!.write('2\r');
    const result = await finished(run);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('Port noted.');
    // The answer reached the model as the ask_user result: option 2, not the digit typed.
    const toolResult = model.requests.at(-1)!.lastToolResult!;
    expect(toolResult.isError).toBe(false);
    expect(toolResult.content).toContain('8080');
    expect(toolResult.content).not.toMatch(/\b2\b/);
    expect(result.stdout).toMatch(/answered/);
  });

  it('Ctrl-C cancels the run on the server and exits 130', async () => {
    model.script(reply().tool('bash', { command: 'rm -f precious.txt' }), reply().text('never'));
    const run = chat('delete precious.txt');
    const [, approvalId] = await run.waitFor(/control-center approvals approve (\S+)/);
    const runId = (await run.waitFor(/run (run_\S+)/))[1];
    run.child.kill('SIGINT');
    const result = await finished(run);
    expect(result.code).toBe(130);
    const state = (await api('GET', `/runs/${runId}`)).run.state;
    expect(state).toBe('cancelled');
    expect((await api('GET', '/approvals?status=pending')).approvals.map((approval: any) => approval.id)).not.toContain(approvalId);
  });

  /** Each case must exit 2 with a message naming the flag, and leave the spaces as they were. */
  async function refused(cases: Array<[string[], RegExp]>): Promise<void> {
    const spacesBefore = (await api('GET', '/spaces')).spaces.length;
    for (const [args, message] of cases) {
      const result = await finished(chat(...args));
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await api('GET', '/spaces')).spaces).toHaveLength(spacesBefore);
  }

  // Each case starts the CLI afresh (seconds apiece on a loaded machine), hence the longer timeouts.
  it('flags commander refuses (a bad --mode, an unknown flag, no message) exit 2 and create nothing', async () => {
    await refused([
      [['--mode', 'Turbo', 'hi'], /--mode/],
      [['--frobnicate', 'hi'], /frobnicate/],
      [[], /message/],
    ]);
  }, 120_000);

  it('targets that do not exist, or conflict, and an empty message exit 2 naming the flag and create nothing', async () => {
    await refused([
      [['--space', 'no such space', 'hi'], /--space/],
      [['--conversation', 'cv_nope', 'hi'], /--conversation/],
      [['--space', 'x', '--conversation', 'y', 'hi'], /--space or --conversation/],
      [['   '], /<message>/],
    ]);
  }, 120_000);
});
