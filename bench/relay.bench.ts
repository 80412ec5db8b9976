/**
 * What the Claude Agent SDK transport (RLY-7) adds per turn, against the real SDK run bare on the same
 * scripted session (the peer, in the same run):
 * - turn wall time: bare `query()` (bypassPermissions, no hooks, no MCP, the model server directly)
 *   vs the transport (in-process PreToolUse hook → the real policy engine, canUseTool, the Control
 *   Center MCP server configured, the model proxy with the run token), without and with bubblewrap;
 * - memory per idle session: the resident size of the SDK's engine process held open between two
 *   turns (what a design keeping one process per idle conversation would cost), and the processes
 *   this transport leaves behind after a turn (it keeps none: each turn starts a process that
 *   resumes the session from disk).
 * Medians over several runs; the model is the scripted model server (no latency of its own).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { ClaudeAgentSdkTransport } from '../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { probeBubblewrap } from '../src/sandbox/bubblewrap-sandbox.js';
import { CLAUDE_OFFLINE_VARIABLES } from '../src/sandbox/runner-environment.js';
import { startClaudeCodeFixture } from '../test/support/claude-code-fixture.js';
import { reply, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { median, type BenchFigure } from './figure.js';
import { benchRunContext } from './relay-run-context.js';

const RUNS = 5;
const CALLS_PER_TURN = 4;

function scriptTurn(model: ScriptedModelServer): void {
  model.script(...Array.from({ length: CALLS_PER_TURN }, () => reply().tool('Bash', { command: 'true' })), reply().text('done'));
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** A bare SDK turn; with `holdOpen` the input stays open after the result and the engine's RSS is read while it idles. */
async function bareTurn(model: ScriptedModelServer, cwd: string, holdOpen = false): Promise<{ wallMs: number; idleRssMb: number | null }> {
  const home = await mkdtemp(join(tmpdir(), 'sdk-bench-home-'));
  let release: () => void = () => undefined;
  let pid = 0;
  let idleRssMb: number | null = null;
  const released = new Promise<void>((resolve) => (release = resolve));
  async function* input(): AsyncGenerator<SDKUserMessage> {
    yield { type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null };
    await released;
  }
  const started = performance.now();
  let wallMs = 0;
  const stream = query({
    prompt: input(),
    options: {
      cwd,
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      settingSources: [],
      // The same offline switches the transport sets, so the peer is not slowed by traffic it would not make.
      env: { PATH: process.env.PATH, HOME: home, ...model.providerEnv, ...CLAUDE_OFFLINE_VARIABLES, ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}) },
      spawnClaudeCodeProcess: (options) => {
        const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore'] });
        pid = child.pid ?? 0;
        return child;
      },
    },
  });
  for await (const message of stream) {
    if (message.type !== 'result') continue;
    wallMs = performance.now() - started;
    if (holdOpen && pid) {
      // Let the engine settle into its idle state before reading its resident size.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      idleRssMb = rssMb(pid);
    }
    release();
  }
  await rm(home, { recursive: true, force: true });
  return { wallMs, idleRssMb };
}

export default async function relayBench(): Promise<BenchFigure[]> {
  const fixture = await startClaudeCodeFixture({
    mode: 'chat',
    adapter: {
      id: 'claude-agent-sdk',
      transport: (app, dataRoot) => new ClaudeAgentSdkTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, askUser: async () => [] }),
    },
  });
  const figures: BenchFigure[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'sdk-bench-'));
  try {
    const worktree = join(scratch, 'worktree');
    await mkdir(worktree, { recursive: true });
    const bwrap = (await probeBubblewrap()).available;
    const agent = (await fixture.api('GET', `/api/workspaces/${fixture.workspaceId}/agents/${fixture.agentId}`)).body;
    let leftover = 0;

    const transportTurn = async (sandbox: 'none' | 'auto', index: number): Promise<number> => {
      const runId = `run_sdk_bench_${sandbox}_${index}`;
      const { context, close } = benchRunContext(fixture, { runId, agent, worktree, scratch, provider: 'anthropic' });
      let pid = 0;
      const transport = new ClaudeAgentSdkTransport({
        hookSessions: fixture.app.hookSessions,
        sandbox,
        allowUnsandboxed: sandbox === 'none',
        hiddenPaths: [fixture.dataRoot],
        askUser: async () => [],
        onSpawn: (spawned) => (pid = spawned),
      });
      const started = performance.now();
      const result = await transport.run(context);
      const wallMs = performance.now() - started;
      close();
      if (result.outcome !== 'completed') throw new Error(`bench turn failed: ${result.error}`);
      // Nothing of the turn stays running: the next turn resumes the session from disk.
      try {
        process.kill(pid, 0);
        leftover += 1;
      } catch {
        // gone, as it should be
      }
      return wallMs;
    };

    const series = { bare: [] as number[], transport: [] as number[], bwrap: [] as number[] };
    for (let index = 0; index < RUNS; index += 1) {
      scriptTurn(fixture.model);
      series.bare.push((await bareTurn(fixture.model, worktree)).wallMs);
      scriptTurn(fixture.model);
      series.transport.push(await transportTurn('none', index));
      if (bwrap) {
        scriptTurn(fixture.model);
        series.bwrap.push(await transportTurn('auto', index));
      }
    }
    figures.push({ metric: 'turn_bare_sdk_ms', value: median(series.bare), unit: 'ms' });
    figures.push({ metric: 'turn_sdk_transport_ms', value: median(series.transport), unit: 'ms' });
    figures.push({ metric: 'turn_sdk_transport_overhead_ms', value: median(series.transport) - median(series.bare), unit: 'ms' });
    figures.push({ metric: 'turn_sdk_transport_vs_bare', value: median(series.transport) / median(series.bare), unit: 'ratio' });
    if (bwrap) {
      figures.push({ metric: 'turn_sdk_transport_bwrap_ms', value: median(series.bwrap), unit: 'ms' });
      figures.push({ metric: 'turn_sdk_transport_bwrap_vs_bare', value: median(series.bwrap) / median(series.bare), unit: 'ratio' });
    }

    const idle: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      fixture.model.script(reply().text('idle'));
      const measured = await bareTurn(fixture.model, worktree, true);
      if (measured.idleRssMb !== null) idle.push(measured.idleRssMb);
    }
    figures.push({ metric: 'idle_session_engine_rss_mb', value: median(idle), unit: 'MB' });
    figures.push({ metric: 'transport_processes_left_after_turn', value: leftover, unit: 'processes' });
  } finally {
    await fixture.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
  return figures;
}
