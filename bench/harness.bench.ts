/**
 * The built-in harness (issue: harness). Figures:
 * - loop_overhead_per_round_trip: the agent loop alone with an in-process, zero-latency model
 *   (no HTTP, no tool work): what the harness adds per model round trip;
 * - session_*: one scripted session (3 shell calls, then an answer) end to end through the real
 *   server (HTTP model, SQLite run log, SSE), against the real `claude -p` on the same script;
 * - concurrent_*: 100 runs × 20 tool calls at once on this machine, with a count of lost events.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentLoop } from '../src/harness/agent-loop.js';
import type { ModelEvent, StreamFn } from '../src/llm/model-types.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../test/support/scripted-reply.js';
import { SseClient } from '../test/support/sse-client.js';
import { createSeededWorkspace, startTestServer } from '../test/support/test-server.js';
import { median, percentile, type BenchFigure } from './figure.js';

const toolResultsSoFar = (request: ScriptedRequest) => JSON.stringify(request.body?.messages ?? []).split('"tool_result"').length - 1 + JSON.stringify(request.body?.messages ?? []).split('"role":"tool"').length - 1;

/** 3 shell calls, then an answer — whatever the client's tool is called. */
function threeShellCalls(toolName: string) {
  return reply((request) => {
    if (!request.toolNames.includes(toolName)) return reply().text('ok');
    return toolResultsSoFar(request) < 3 ? reply().tool(toolName, toolName === 'Bash' ? { command: 'true', description: 'noop' } : { command: 'true' }) : reply().text('done');
  });
}

async function loopOverhead(): Promise<BenchFigure[]> {
  const roundTrips = 2_000;
  let call = 0;
  const streamFn: StreamFn = async function* (): AsyncIterable<ModelEvent> {
    call += 1;
    if (call % roundTrips === 0) {
      yield { type: 'text_delta', text: 'done' };
      yield { type: 'usage', inputTokens: 10, outputTokens: 2 };
      yield { type: 'done', stopReason: 'end_turn' };
      return;
    }
    yield { type: 'text_delta', text: 'step' };
    yield { type: 'tool_call', id: `t${call}`, name: 'noop', input: { n: call } };
    yield { type: 'usage', inputTokens: 10, outputTokens: 2 };
    yield { type: 'done', stopReason: 'tool_use' };
  };
  const samples: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    let events = 0;
    const started = performance.now();
    await runAgentLoop({
      streamFn,
      model: 'bench',
      system: 'bench',
      maxTokens: 1000,
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ name: 'noop', description: 'noop', inputSchema: { type: 'object' } }],
      executeTool: async () => ({ content: 'ok', isError: false }),
      completion: null,
      drainSteering: () => [],
      waitWhilePaused: async () => undefined,
      signal: new AbortController().signal,
      emit: () => {
        events += 1;
      },
      maxModelCalls: roundTrips + 10,
      loopThreshold: 1_000_000,
    });
    samples.push((performance.now() - started) / roundTrips);
    if (events === 0) throw new Error('no events');
  }
  return [{ metric: 'loop_overhead_per_round_trip_p50', value: median(samples) * 1000, unit: 'us' }];
}

async function ourSession(model: ScriptedModelServer): Promise<number[]> {
  const server = await startTestServer({ env: { ...model.providerEnv }, modelMaxRetries: 0 });
  try {
    const workspace = await createSeededWorkspace(server, 'Bench');
    const space = (await server.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'bench', autonomy: 'actFreely' })).body.id;
    const times: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const conversation = (await server.api('POST', `/api/workspaces/${workspace.id}/spaces/${space}/conversations`, {})).body.id;
      model.script(threeShellCalls('bash'), threeShellCalls('bash'), threeShellCalls('bash'), threeShellCalls('bash'));
      const started = performance.now();
      const posted = await server.api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation}/messages`, { text: 'run true three times' });
      const active = server.running.app.activeRuns.get(posted.body.run.id);
      await active?.finished;
      times.push(performance.now() - started);
      model.reset();
    }
    return times;
  } finally {
    await server.dispose();
  }
}

async function claudeSession(model: ScriptedModelServer): Promise<number[] | null> {
  let binary: string;
  try {
    binary = join(createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/package.json'), '..', 'bin', 'claude.exe');
  } catch {
    return null;
  }
  const times: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    model.script(...Array.from({ length: 8 }, () => threeShellCalls('Bash')));
    const home = mkdtempSync(join(tmpdir(), 'cc-bench-home-'));
    const cwd = mkdtempSync(join(tmpdir(), 'cc-bench-cwd-'));
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(binary, ['-p', 'run true three times', '--output-format', 'json', '--dangerously-skip-permissions'], {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
          ANTHROPIC_API_KEY: 'bench',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          IS_SANDBOX: '1',
        },
      });
      child.on('exit', resolve);
    });
    times.push(performance.now() - started);
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
    model.reset();
    if (code !== 0) return null;
  }
  return times;
}

async function concurrentRuns(): Promise<BenchFigure[]> {
  const runs = 100;
  const callsPerRun = 20;
  const model = await startScriptedModelServer();
  const server = await startTestServer({ env: { ...model.providerEnv }, modelMaxRetries: 0 });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  try {
    const workspace = await createSeededWorkspace(server, 'Load');
    await server.api('PATCH', `/api/workspaces/${workspace.id}/settings`, { maxConcurrentRuns: 32 });
    const space = (await server.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'load', autonomy: 'actFreely' })).body.id;
    const conversations: string[] = [];
    for (let index = 0; index < runs; index += 1) {
      conversations.push((await server.api('POST', `/api/workspaces/${workspace.id}/spaces/${space}/conversations`, {})).body.id);
      model.scriptFor(
        (request) => request.allText.includes(`[run:${index}]`),
        ...Array.from({ length: callsPerRun }, (_, call) => reply().tool('todo', { todos: [{ content: `item ${call}`, status: 'pending' }] })),
        reply().text(`run ${index} done`),
      );
    }
    const stream = await SseClient.open(`${server.url}/api/workspaces/${workspace.id}/events`, { authorization: `Bearer ${server.token}` });
    const started = performance.now();
    const posted = await Promise.all(
      conversations.map((conversation, index) =>
        server.api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation}/messages`, { text: `work [run:${index}]` }),
      ),
    );
    const runIds = posted.map((response) => response.body.run.id as string);
    await Promise.all(runIds.map((runId) => server.running.app.activeRuns.get(runId)?.finished));
    const elapsed = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.close();
    const endEvents = new Map<string, number>();
    for (const event of stream.events) {
      if (event.event === 'run.event' && event.data.data.event.type === 'tool_call_end') {
        endEvents.set(event.data.data.runId, (endEvents.get(event.data.data.runId) ?? 0) + 1);
      }
    }
    const lost = runIds.reduce((sum, runId) => sum + Math.max(0, callsPerRun - (endEvents.get(runId) ?? 0)), 0);
    const detail = await server.api('GET', `/api/workspaces/${workspace.id}/runs?limit=500`);
    const completed = detail.body.runs.filter((run: { state: string }) => run.state === 'completed').length;
    return [
      { metric: 'concurrent_runs', value: runs, unit: 'runs' },
      { metric: 'concurrent_runs_completed', value: completed, unit: 'runs' },
      { metric: 'concurrent_wall_time', value: elapsed, unit: 'ms' },
      { metric: 'concurrent_tool_calls_per_second', value: (runs * callsPerRun) / (elapsed / 1000), unit: 'calls/s' },
      { metric: 'concurrent_lost_tool_events', value: lost, unit: 'events' },
      { metric: 'concurrent_peak_rss', value: peakRss / (1024 * 1024), unit: 'MiB' },
    ];
  } finally {
    clearInterval(sampler);
    await server.dispose();
    await model.close();
  }
}

export default async function harness(): Promise<BenchFigure[]> {
  const figures = await loopOverhead();
  const model = await startScriptedModelServer();
  try {
    const ours = await ourSession(model);
    figures.push({ metric: 'session_3_tools_ours_p50', value: median(ours), unit: 'ms' });
    figures.push({ metric: 'session_3_tools_ours_p90', value: percentile(ours, 90), unit: 'ms' });
    const claude = await claudeSession(model);
    if (claude) {
      figures.push({ metric: 'session_3_tools_claude_code_p50', value: median(claude), unit: 'ms' });
      figures.push({ metric: 'session_ratio_claude_over_ours', value: median(claude) / median(ours), unit: 'x' });
    }
  } finally {
    await model.close();
  }
  figures.push(...(await concurrentRuns()));
  return figures;
}
