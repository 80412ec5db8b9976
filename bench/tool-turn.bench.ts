/**
 * The cost of one tool turn on the built-in harness, end to end through the real server: a message
 * whose scripted model asks for one `bash` call (`true`), then answers. The space has a git
 * repository, so the conversation's checkout, the sandbox and the push-proxy wiring are all on the
 * path. The server runs in a process of its own (`tool-turn-server.ts`); the scripted model server and
 * the HTTP client stay here, so the server's figure is the server's alone. Figures:
 * - tool_turn_wall_p50 / p90: from POST of the message to the run's end;
 * - tool_turn_server_cpu_p50 / p90: CPU (user + system, all threads) of the server process per turn;
 * - tool_turn_children_cpu_per_turn: CPU of the server's child processes per turn (git, bubblewrap,
 *   bash, and the long-lived spawn helper that starts them), averaged over the measured turns: /proc
 *   counts it in 10 ms ticks, too coarse for one turn.
 * - tool_turn_server_other_threads_cpu_per_turn: the part of the server's CPU spent on threads other
 *   than the main one (V8's background compiler and GC, libuv's pool), averaged the same way. No
 *   JavaScript profile shows it; it was how the wasm tier-up of the bash grammar was found (issue 11).
 * With CC_BENCH_CPU_PROFILE=<dir>, the server writes a CPU profile of the measured turns only to
 * <dir>/tool-turn-server.cpuprofile (the profiler's own cost then inflates the CPU figures).
 * CC_BENCH_TURNS sets the number of measured turns (default 100); CC_BENCH_SERVER_FLAGS passes Node
 * flags to the server process (`--trace-gc`, `--trace-opt`…), for looking into a figure.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../test/support/scripted-reply.js';
import { median, percentile, type BenchFigure } from './figure.js';

/** Measured turns (CC_BENCH_TURNS): enough that the median is a warmed-up server's, as a long-running one is. */
const TURNS = Number(process.env.CC_BENCH_TURNS ?? 100);

interface ServerFigures {
  serverMs: number;
  childrenMs: number;
  otherThreadsMs: number;
}

const hasToolResult = (request: ScriptedRequest) => JSON.stringify(request.body?.messages ?? []).includes('"tool_result"');

/** One shell call, then an answer. */
const oneShellCall = () => reply((request) => (hasToolResult(request) ? reply().text('done') : reply().tool('bash', { command: 'true' })));

/** Sends one IPC request to the server process (none: only waits) and resolves with its next message. */
function ask<T>(child: ChildProcess, message?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the bench server exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (answer) => {
      child.off('exit', onExit);
      resolve(answer as T);
    });
    if (message) child.send(message);
  });
}

export default async function toolTurn(): Promise<BenchFigure[]> {
  const repo = mkdtempSync(join(tmpdir(), 'cc-bench-turn-repo-'));
  execFileSync('git', ['init', '--quiet', '-b', 'main', repo]);
  for (let index = 0; index < 50; index += 1) writeFileSync(join(repo, `file-${index}.txt`), `line ${index}\n`);
  execFileSync('git', ['-C', repo, 'add', '.']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', 'commit', '--quiet', '-m', 'init']);

  const profileDir = process.env.CC_BENCH_CPU_PROFILE;
  const model = await startScriptedModelServer();
  const child = fork(fileURLToPath(new URL('./tool-turn-server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...(process.env.CC_BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []), ...process.execArgv.filter((flag) => flag.startsWith('--cpu-prof'))],
    env: { ...process.env, CC_BENCH_PROVIDER_ENV: JSON.stringify(model.providerEnv) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { url, token } = await ask<{ url: string; token: string }>(child);
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bench reads a few fields of untyped JSON, like the test client
      return { status: response.status, body: (await response.json()) as any };
    };
    const workspace = (await api('POST', '/api/workspaces', { name: 'Bench' })).body;
    // Seeding runs in the background: wait for the default agent before the first message.
    for (let tries = 0; tries < 200 && ((await api('GET', `/api/workspaces/${workspace.id}/agents`)).body?.agents?.length ?? 0) === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const space = await api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'bench', autonomy: 'actFreely', repoPath: repo });
    if (space.status !== 201 && space.status !== 200) throw new Error(`space: ${space.status} ${JSON.stringify(space.body)}`);
    const conversation = (await api('POST', `/api/workspaces/${workspace.id}/spaces/${space.body.id}/conversations`, {})).body.id;
    const wall: number[] = [];
    const cpu: number[] = [];
    let childrenBefore = 0;
    let threadsBefore = 0;
    // Two warm-up turns create the checkout and start what is started once; the measured turns reuse them, as a conversation does.
    for (let turn = -2; turn < TURNS; turn += 1) {
      if (turn === 0 && profileDir) await ask(child, { profile: 'start' });
      model.script(oneShellCall(), oneShellCall());
      const before = await ask<ServerFigures>(child, { cpu: true });
      if (turn === 0) {
        childrenBefore = before.childrenMs;
        threadsBefore = before.otherThreadsMs;
      }
      const started = performance.now();
      const posted = await api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation}/messages`, { text: 'run true once' });
      const runId = posted.body.run?.id as string | undefined;
      if (!runId) throw new Error(`no run: ${posted.status} ${JSON.stringify(posted.body).slice(0, 300)}`);
      const after = await ask<ServerFigures>(child, { wait: runId });
      const elapsed = performance.now() - started;
      model.reset();
      const run = (await api('GET', `/api/workspaces/${workspace.id}/runs/${runId}`)).body?.run;
      if (run?.state !== 'completed') throw new Error(`turn ended ${run?.state}: ${run?.error ?? JSON.stringify(run).slice(0, 300)}`);
      if (turn >= 0) {
        wall.push(elapsed);
        cpu.push(after.serverMs - before.serverMs);
      }
    }
    const last = await ask<ServerFigures>(child, { cpu: true });
    if (profileDir) await ask(child, { profile: 'stop' });
    return [
      { metric: 'tool_turn_wall_p50', value: median(wall), unit: 'ms' },
      { metric: 'tool_turn_wall_p90', value: percentile(wall, 90), unit: 'ms' },
      { metric: 'tool_turn_server_cpu_p50', value: median(cpu), unit: 'ms' },
      { metric: 'tool_turn_server_cpu_p90', value: percentile(cpu, 90), unit: 'ms' },
      { metric: 'tool_turn_children_cpu_per_turn', value: (last.childrenMs - childrenBefore) / TURNS, unit: 'ms' },
      { metric: 'tool_turn_server_other_threads_cpu_per_turn', value: (last.otherThreadsMs - threadsBefore) / TURNS, unit: 'ms' },
    ];
  } finally {
    if (child.exitCode === null) await ask(child, { stop: true }).catch(() => undefined);
    await model.close();
    rmSync(repo, { recursive: true, force: true });
  }
}
