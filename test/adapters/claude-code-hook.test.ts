import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportGateResult } from '../../src/adapters/agent-transport.js';
import { hookOutput, transportActionOf } from '../../src/adapters/claude-code/hook-decision.js';
import { writeHookFiles } from '../../src/adapters/claude-code/hook-script.js';
import { HookSessions, type HookSession } from '../../src/core/hook-sessions.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

const scratch: string[] = [];
const servers: Server[] = [];
let fixture: ClaudeCodeFixture | null = null;

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
  await fixture?.dispose();
  fixture = null;
});

const HOOK_INPUT = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf x' }, tool_use_id: 'toolu_1' });

/** Runs the generated hook exactly as Claude Code does: the command through a shell, JSON on stdin. */
async function runHook(serverUrl: string, options: { timeoutSeconds?: number; node?: string } = {}): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-hook-'));
  scratch.push(dir);
  const files = await writeHookFiles(dir, { serverUrl, token: 'cca_test', timeoutSeconds: options.timeoutSeconds ?? 60, ...(options.node ? { node: options.node } : {}) });
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', files.command], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
    // The hook may exit before reading stdin (a missing interpreter does): that must not fail the test with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(HOOK_INPUT);
  });
}

async function stubServer(handler: (body: string, respond: (status: number, body: string) => void) => void): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => handler(body, (status, text) => response.writeHead(status, { 'content-type': 'application/json' }).end(text)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('PreToolUse hook script (fail closed)', () => {
  it('denies when the Control Center cannot be reached', async () => {
    const closed = await stubServer(() => undefined);
    servers.pop()!.close();
    const result = await runHook(closed);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot reach the Control Center .*\(fail closed\)/);
  });

  it('denies on an HTTP error and on an answer that is not a decision', async () => {
    const failing = await stubServer((_body, respond) => respond(500, '{"error":{"code":"internal"}}'));
    expect((await runHook(failing)).code).toBe(2);
    const garbage = await stubServer((_body, respond) => respond(200, 'not json'));
    expect((await runHook(garbage)).code).toBe(2);
    const wrong = await stubServer((_body, respond) => respond(200, JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'allow' } })));
    expect((await runHook(wrong)).code).toBe(2);
  });

  it('denies by itself before Claude Code’s own hook timeout', async () => {
    const silent = await stubServer(() => undefined);
    const result = await runHook(silent, { timeoutSeconds: 16 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no decision before the hook deadline/);
    expect(result.ms).toBeLessThan(5_000);
  });

  it('a missing interpreter still blocks (exit 2, never the fail-open 127)', async () => {
    const any = await stubServer((_body, respond) => respond(200, '{}'));
    const result = await runHook(any, { node: '/nonexistent/node' });
    expect(result.code).toBe(2);
  });

  it('forwards the hook input with the run token and passes allow and deny through', async () => {
    let seen = '';
    const allow = await stubServer((body, respond) => {
      seen = body;
      respond(200, JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'ok' } }));
    });
    const allowed = await runHook(allow);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    expect(JSON.parse(seen)).toEqual(JSON.parse(HOOK_INPUT));
    const deny = await stubServer((_body, respond) =>
      respond(200, JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Control Center: denied (decided by space rule r1)' } })),
    );
    const denied = await runHook(deny);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('decided by space rule r1');
  });
});

const allowResult: TransportGateResult = { allow: true, decision: 'allow', reason: 'ok', decidedBy: { scope: 'default', ruleId: null }, classes: [] };

describe('hook decisions (ADP-3)', () => {
  it('an allow overrides the CLI’s checks only in chat; read-only modes give no decision', () => {
    expect(hookOutput(allowResult, 'chat').hookSpecificOutput?.permissionDecision).toBe('allow');
    for (const mode of ['plan', 'review', 'orchestrate'] as const) expect(hookOutput(allowResult, mode)).toEqual({});
    const denied = hookOutput({ ...allowResult, allow: false, decision: 'deny', reason: 'no', decidedBy: { scope: 'space', ruleId: 'r9' } }, 'chat');
    expect(denied.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(denied.hookSpecificOutput?.permissionDecisionReason).toContain('decided by space rule r9');
  });

  it('maps Bash to its command line and the write tools to absolute paths', () => {
    expect(transportActionOf({ tool_name: 'Bash', tool_input: { command: 'ls' } }, '/w')).toEqual({ kind: 'command', command: 'ls', toolName: 'Bash' });
    expect(transportActionOf({ tool_name: 'Edit', tool_input: { file_path: 'src/a.ts' } }, '/w')).toEqual({ kind: 'fileWrite', path: '/w/src/a.ts', toolName: 'Edit' });
    expect(transportActionOf({ tool_name: 'NotebookEdit', tool_input: { notebook_path: '/x/../n.ipynb' } }, '/w')).toEqual({ kind: 'fileWrite', path: '/n.ipynb', toolName: 'NotebookEdit' });
    expect(transportActionOf({ tool_name: 'Bash', tool_input: {} }, '/w')).toHaveProperty('error');
    expect(transportActionOf({ tool_name: 'Read', tool_input: { file_path: '/a' } }, '/w')).toHaveProperty('error');
  });
});

describe('hook route (ADP-3)', () => {
  it('answers 401 without a token and 404 when no Claude Code run uses the token', async () => {
    fixture = await startClaudeCodeFixture({ transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const post = (authorization?: string) =>
      fetch(`${f.url}/api/hooks/pre-tool-use`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body: HOOK_INPUT });
    const missing = await post();
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).error.code).toBe('unauthorized');
    const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId: 'run_without_session', agentId: f.agentId });
    const unknown = await post(`Bearer ${token}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('not_found');
  });

  it('asks the run’s gate, records the decision, and fails closed when the gate throws or the input is malformed', async () => {
    fixture = await startClaudeCodeFixture({ transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const token = f.app.runTokens.issue({ workspaceId: f.workspaceId, runId: 'run_route', agentId: f.agentId });
    let calls = 0;
    const session: HookSession = {
      token,
      workspaceId: f.workspaceId,
      runId: 'run_route',
      mode: 'chat',
      worktreePath: '/w',
      gate: async (action) => {
        calls += 1;
        if (action.kind === 'command' && action.command === 'explode') throw new Error('boom');
        return { allow: action.kind === 'command' && action.command === 'ls', decision: 'allow', reason: 'fine', decidedBy: { scope: 'workspace', ruleId: 'r1' }, classes: [] };
      },
      signal: new AbortController().signal,
      pushRemotes: new Map(),
      pushStagingDir: '/nonexistent',
      decisions: [],
    };
    const unregister = f.app.hookSessions.register(session);
    try {
      const post = async (body: unknown) => {
        const response = await fetch(`${f.url}/api/hooks/pre-tool-use`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
        return { status: response.status, body: (await response.json()) as any };
      };
      const allowed = await post({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_a' });
      expect(allowed.body.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
      const thrown = await post({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'explode' }, tool_use_id: 'toolu_b' });
      expect(thrown.body.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(thrown.body.hookSpecificOutput.permissionDecisionReason).toMatch(/the gate failed: boom \(fail closed\)/);
      const malformed = await post({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 42 } });
      expect(malformed.body.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(calls).toBe(2);
      expect(session.decisions.map((entry) => [entry.toolUseId, entry.allow])).toEqual([
        ['toolu_a', true],
        ['toolu_b', false],
      ]);
    } finally {
      unregister();
    }
  });
});

describe('the transport driven directly with a hand-built run context', () => {
  it('with the Control Center unreachable, the real CLI refuses the Bash command (the hook fails closed)', async () => {
    const { ClaudeCodeTransport } = await import('../../src/adapters/claude-code/claude-code-transport.js');
    const { startScriptedModelServer, reply } = await import('../support/scripted-model-server.js');
    const { existsSync, mkdirSync } = await import('node:fs');
    const model = await startScriptedModelServer();
    const dir = await mkdtemp(join(tmpdir(), 'cc-direct-'));
    scratch.push(dir);
    const worktreePath = join(dir, 'worktree');
    mkdirSync(worktreePath);
    // SEC-6: the CLI reaches its model only through the Control Center's model proxy. This stand-in
    // relays that path to the scripted model and drops every other connection (hook, MCP): the
    // Control Center is unreachable for everything but the model.
    const { createServer, request: httpRequest } = await import('node:http');
    const relay = createServer((incoming, outgoing) => {
      const prefix = '/api/model-proxy/anthropic';
      if (!incoming.url?.startsWith(`${prefix}/`)) return void incoming.socket.destroy();
      const upstream = httpRequest(`${model.url}${incoming.url.slice(prefix.length)}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      incoming.pipe(upstream);
    });
    servers.push(relay);
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const dead = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
    model.script(reply().tool('Bash', { command: 'touch pwned.txt' }), reply().text('done'));
    const events: any[] = [];
    let gateCalls = 0;
    let sandbox = '';
    try {
      const result = await new ClaudeCodeTransport({ hookSessions: new HookSessions(), sandbox: 'none', allowUnsandboxed: true }).run({
        workspaceId: 'ws_direct',
        runId: 'run_direct',
        agent: {
          id: 'ag_direct', workspaceId: 'ws_direct', name: 'direct', title: '', persona: '', systemPrompt: null, skills: [], adapterId: 'claude-code',
          modelId: null, effort: null, contextSize: null, silenceTimeoutMinutes: null, reportsTo: null, acpCommand: null, state: 'idle', createdAt: '', updatedAt: '',
        },
        spaceId: null,
        conversationId: null,
        mode: 'chat',
        autonomy: 'actWithApproval',
        prompt: 'touch a file',
        history: [],
        worktreePath,
        systemPrompt: 'You are a test agent.',
        surfacedTools: [],
        mcp: { url: `${dead}/mcp`, token: 'cca_direct' },
        serverUrl: dead,
        env: { PATH: process.env.PATH, ...model.providerEnv },
        workspaceDir: dir,
        signal: new AbortController().signal,
        emit: (event) => events.push(event),
        gate: async () => {
          gateCalls += 1;
          return { allow: true, decision: 'allow', reason: 'ok', decidedBy: { scope: 'default', ruleId: null }, classes: [] };
        },
        setSandbox: (description) => (sandbox = description),
        previousSessionId: null,
        saveSessionId: async () => undefined,
      });
      expect(result.outcome).toBe('completed');
      expect(existsSync(join(worktreePath, 'pwned.txt'))).toBe(false);
      expect(gateCalls).toBe(0);
      const end = events.find((event) => event.type === 'tool_call_end' && event.call.name === 'Bash');
      expect(end.executed).toBe(false);
      expect(end.result.content).toMatch(/cannot reach the Control Center/);
      expect(events.some((event) => event.type === 'protocol_error' && /MCP server is failed/.test(event.message))).toBe(true);
      expect(sandbox).toMatch(/^none: disabled by configuration/);
    } finally {
      await model.close();
    }
  });
});
