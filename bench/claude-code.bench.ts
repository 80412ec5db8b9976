/**
 * What the Claude Code adapter adds per turn, against the real `claude` binary run bare on the same
 * scripted session (the peer, in the same run):
 * - turn wall time: bare `claude -p` (no hooks, no MCP) vs the adapter (PreToolUse hook to the real
 *   hook route and policy engine, Control Center MCP server configured, sanitized env), without and
 *   with the bubblewrap sandbox (loopback relays);
 * - per Bash call (tool_use → tool_result as seen on the stream): bare vs hooked — the hook round trip;
 * - the hook round trip measured directly (the generated script, started as Claude Code starts it);
 * - an MCP call's round trip (tool_use → tool_result) vs a native no-op call, both from the bare CLI.
 * Medians over several runs; the model is the scripted model server (no latency of its own).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TransportRunContext } from '../src/adapters/agent-transport.js';
import { ClaudeCodeTransport } from '../src/adapters/claude-code/claude-code-transport.js';
import { resolveClaudePath } from '../src/adapters/claude-code/claude-binary.js';
import { writeHookFiles } from '../src/adapters/claude-code/hook-script.js';
import { NdjsonFramer } from '../src/adapters/claude-code/ndjson-framer.js';
import { ClaudeStreamTranslator } from '../src/adapters/claude-code/stream-translator.js';
import { probeBubblewrap } from '../src/sandbox/bubblewrap-sandbox.js';
import { startClaudeCodeFixture } from '../test/support/claude-code-fixture.js';
import { startStandInMcpServer } from '../test/support/stand-in-mcp-server.js';
import { reply, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { median, type BenchFigure } from './figure.js';

const RUNS = 5;
const CALLS_PER_TURN = 4;

interface TurnMeasure {
  wallMs: number;
  callMs: Record<string, number[]>;
}

function scriptTurn(model: ScriptedModelServer, tool: string, input: Record<string, unknown>): void {
  model.script(...Array.from({ length: CALLS_PER_TURN }, () => reply().tool(tool, input)), reply().text('done'));
}

/** Runs the CLI bare (the peer): same flags for streaming, no hook, no MCP unless given. */
async function bareTurn(model: ScriptedModelServer, cwd: string, extraArgs: string[] = []): Promise<TurnMeasure> {
  const home = await mkdtemp(join(tmpdir(), 'cc-bench-home-'));
  const callMs: Record<string, number[]> = {};
  const translator = new ClaudeStreamTranslator({ outputVerb: null });
  const started = performance.now();
  const child = spawn(
    resolveClaudePath(),
    ['-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--setting-sources', '', '--dangerously-skip-permissions', ...extraArgs],
    {
      cwd,
      env: { PATH: process.env.PATH!, HOME: home, ...model.providerEnv, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}) },
      stdio: ['pipe', 'pipe', 'ignore'],
    },
  );
  // MCP calls are not emitted as tool events by the translator: time them from the raw stream.
  const mcpStarted = new Map<string, number>();
  const framer = new NdjsonFramer(
    (message) => {
      const content = ((message.message as { content?: unknown[] } | undefined)?.content ?? []) as Array<Record<string, unknown>>;
      for (const block of content) {
        if (block.type === 'tool_use' && String(block.name).startsWith('mcp__')) mcpStarted.set(String(block.id), performance.now());
        if (block.type === 'tool_result' && mcpStarted.has(String(block.tool_use_id))) {
          (callMs.mcp ??= []).push(performance.now() - mcpStarted.get(String(block.tool_use_id))!);
        }
      }
      for (const event of translator.translate(message)) {
        if (event.type === 'tool_call_end') (callMs[event.call.name] ??= []).push(event.durationMs);
      }
      if (message.type === 'result') child.stdin.end();
    },
    () => undefined,
  );
  child.stdout.on('data', (chunk: Buffer) => framer.push(chunk));
  child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } })}\n`);
  await new Promise((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - started;
  await rm(home, { recursive: true, force: true });
  return { wallMs, callMs };
}

export default async function claudeCodeBench(): Promise<BenchFigure[]> {
  const fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none' } });
  const figures: BenchFigure[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'cc-bench-'));
  try {
    const worktree = join(scratch, 'worktree');
    await import('node:fs/promises').then((fs) => fs.mkdir(worktree, { recursive: true }));
    const bwrap = (await probeBubblewrap()).available;

    const adapterTurn = async (sandbox: 'none' | 'auto', index: number): Promise<TurnMeasure> => {
      const runId = `run_bench_${sandbox}_${index}`;
      const token = fixture.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId, agentId: fixture.agentId });
      const callMs: Record<string, number[]> = {};
      const context: TransportRunContext = {
        workspaceId: fixture.workspaceId,
        runId,
        agent: (await fixture.api('GET', `/api/workspaces/${fixture.workspaceId}/agents/${fixture.agentId}`)).body,
        spaceId: fixture.spaceId,
        conversationId: null,
        mode: 'chat',
        autonomy: 'actWithApproval',
        prompt: 'go',
        history: [],
        worktreePath: worktree,
        systemPrompt: '',
        surfacedTools: [],
        mcp: { url: `${fixture.url}/mcp`, token },
        serverUrl: fixture.url,
        env: { PATH: process.env.PATH, ...fixture.model.providerEnv },
        workspaceDir: scratch,
        signal: new AbortController().signal,
        emit: (event) => {
          if (event.type === 'tool_call_end') (callMs[event.call.name] ??= []).push(event.durationMs);
        },
        // The real policy engine decides each command (no approvals: `true` is allowed by default).
        gate: async (action) => {
          const verdict = await fixture.app.policy.decideCommand(fixture.workspaceId, { mode: 'chat', autonomy: 'actWithApproval', spaceId: fixture.spaceId, agentId: fixture.agentId, worktreeRoot: worktree }, action.kind === 'command' ? action.command : '', action.toolName);
          return { allow: verdict.decision === 'allow', decision: verdict.decision, reason: verdict.explanation, decidedBy: verdict.decidedBy, classes: verdict.classes };
        },
        setSandbox: () => undefined,
        previousSessionId: null,
        saveSessionId: async () => undefined,
      };
      const started = performance.now();
      const result = await new ClaudeCodeTransport({ hookSessions: fixture.app.hookSessions, sandbox, hiddenPaths: [fixture.dataRoot] }).run(context);
      const wallMs = performance.now() - started;
      fixture.app.runTokens.revoke(runId);
      if (result.outcome !== 'completed') throw new Error(`bench turn failed: ${result.error}`);
      return { wallMs, callMs };
    };

    const series = { bare: [] as TurnMeasure[], adapter: [] as TurnMeasure[], bwrap: [] as TurnMeasure[] };
    for (let index = 0; index < RUNS; index += 1) {
      scriptTurn(fixture.model, 'Bash', { command: 'true' });
      series.bare.push(await bareTurn(fixture.model, worktree));
      scriptTurn(fixture.model, 'Bash', { command: 'true' });
      series.adapter.push(await adapterTurn('none', index));
      if (bwrap) {
        scriptTurn(fixture.model, 'Bash', { command: 'true' });
        series.bwrap.push(await adapterTurn('auto', index));
      }
    }
    const wall = (list: TurnMeasure[]) => median(list.map((entry) => entry.wallMs));
    const bash = (list: TurnMeasure[]) => median(list.flatMap((entry) => entry.callMs.Bash ?? []));
    figures.push({ metric: 'turn_bare_claude_ms', value: wall(series.bare), unit: 'ms' });
    figures.push({ metric: 'turn_adapter_ms', value: wall(series.adapter), unit: 'ms' });
    figures.push({ metric: 'turn_adapter_vs_bare', value: wall(series.adapter) / wall(series.bare), unit: 'ratio' });
    figures.push({ metric: 'bash_call_bare_ms', value: bash(series.bare), unit: 'ms' });
    figures.push({ metric: 'bash_call_hooked_ms', value: bash(series.adapter), unit: 'ms' });
    figures.push({ metric: 'hook_added_per_call_ms', value: bash(series.adapter) - bash(series.bare), unit: 'ms' });
    if (bwrap) {
      figures.push({ metric: 'turn_adapter_bwrap_ms', value: wall(series.bwrap), unit: 'ms' });
      figures.push({ metric: 'turn_adapter_bwrap_vs_bare', value: wall(series.bwrap) / wall(series.bare), unit: 'ratio' });
      figures.push({ metric: 'bash_call_hooked_bwrap_ms', value: bash(series.bwrap), unit: 'ms' });
    }

    // The hook round trip on its own: the generated script against the real route, allow decision.
    const runId = 'run_bench_hook';
    const token = fixture.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId, agentId: fixture.agentId });
    const unregister = fixture.app.hookSessions.register({
      token,
      workspaceId: fixture.workspaceId,
      runId,
      mode: 'chat',
      worktreePath: worktree,
      gate: async (action) => {
        const verdict = await fixture.app.policy.decideCommand(fixture.workspaceId, { mode: 'chat', autonomy: 'actWithApproval', spaceId: fixture.spaceId, agentId: fixture.agentId }, action.kind === 'command' ? action.command : '');
        return { allow: verdict.decision === 'allow', decision: verdict.decision, reason: verdict.explanation, decidedBy: verdict.decidedBy, classes: verdict.classes };
      },
      signal: new AbortController().signal,
      pushRemotes: new Map(),
      pushStagingDir: scratch,
      decisions: [],
    });
    const hookDir = join(scratch, 'hook');
    await import('node:fs/promises').then((fs) => fs.mkdir(hookDir, { recursive: true }));
    const hook = await writeHookFiles(hookDir, { serverUrl: fixture.url, token, timeoutSeconds: 60 });
    const hookMs: number[] = [];
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git status && ls -la' }, tool_use_id: 'toolu_bench' });
    for (let index = 0; index < 15; index += 1) {
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const child = spawn('sh', ['-c', hook.command], { stdio: ['pipe', 'ignore', 'ignore'] });
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`hook exited ${code}`))));
        child.stdin.end(input);
      });
      hookMs.push(performance.now() - started);
    }
    // The same decision over HTTP from this process: the route + policy part of the round trip
    // (the rest of hook_roundtrip_direct_ms is starting node for the script).
    const routeMs: number[] = [];
    for (let index = 0; index < 50; index += 1) {
      const started = performance.now();
      const response = await fetch(`${fixture.url}/api/hooks/pre-tool-use`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: input });
      await response.text();
      routeMs.push(performance.now() - started);
    }
    unregister();
    fixture.app.runTokens.revoke(runId);
    figures.push({ metric: 'hook_roundtrip_direct_ms', value: median(hookMs), unit: 'ms' });
    figures.push({ metric: 'hook_route_http_and_policy_ms', value: median(routeMs), unit: 'ms' });

    // MCP call round trip vs a native no-op call, both as the bare CLI sees them.
    const mcp = await startStandInMcpServer({ token: 'bench' });
    try {
      const config = JSON.stringify({ mcpServers: { 'control-center': { type: 'http', url: mcp.url, headers: { Authorization: 'Bearer bench' } } } });
      const mcpCalls: number[] = [];
      const nativeCalls: number[] = [];
      for (let index = 0; index < RUNS; index += 1) {
        scriptTurn(fixture.model, 'mcp__control-center__echo', { text: 'ping' });
        mcpCalls.push(...((await bareTurn(fixture.model, worktree, ['--strict-mcp-config', '--mcp-config', config])).callMs.mcp ?? []));
        scriptTurn(fixture.model, 'Bash', { command: 'true' });
        nativeCalls.push(...((await bareTurn(fixture.model, worktree)).callMs.Bash ?? []));
      }
      figures.push({ metric: 'mcp_call_roundtrip_ms', value: median(mcpCalls), unit: 'ms' });
      figures.push({ metric: 'native_noop_call_ms', value: median(nativeCalls), unit: 'ms' });
    } finally {
      await mcp.close();
    }
  } finally {
    await fixture.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
  return figures;
}
