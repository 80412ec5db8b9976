/**
 * The cost of one tool turn on the built-in harness, end to end through the real server: a message
 * whose scripted model asks for one `bash` call (`true`), then answers. The space has a git
 * repository, so the conversation's checkout, the sandbox and the push-proxy wiring are all on the
 * path. The server runs in a process of its own (`tool-turn-server.ts`); the scripted model server and
 * the HTTP client stay here, so the server's figure is the server's alone. All turns are one
 * conversation's. Two phases are measured: the first turns of a fresh server (after two warm-up
 * turns), then, after 1,000 more turns (CC_BENCH_WARM_AFTER), the turns of a server that has run for
 * a while, whose figures are prefixed `tool_turn_warm_`. They differ mostly in the other threads' CPU:
 * V8 compiles a function with its optimizing compiler, on a background thread, only once it has run
 * many times, and most of a turn's functions run once or twice per turn, so that work goes on for
 * hundreds of turns. Figures of each phase:
 * - tool_turn_wall_p50 / p90: from POST of the message to the run's end;
 * - tool_turn_server_cpu_p50 / p90: CPU (user + system, all threads) of the server process per turn;
 * - tool_turn_children_cpu_per_turn: CPU of every process below the server per turn (bubblewrap, the
 *   warm sandbox's spawn helper and the `bash` it forks, git), averaged over the measured turns: /proc
 *   counts it in 10 ms ticks, too coarse for one turn.
 * - tool_turn_server_other_threads_cpu_per_turn: the part of the server's CPU spent on threads other
 *   than the main one (V8's background compiler and GC, libuv's pool), averaged the same way. No
 *   JavaScript profile shows it; it was how the wasm tier-up of the bash grammar was found.
 * With CC_BENCH_CPU_PROFILE=<dir>, the server writes a CPU profile of the last measured phase only to
 * <dir>/tool-turn-server.cpuprofile (the profiler's own cost then inflates the CPU figures; the
 * sampling interval is CC_BENCH_PROFILE_INTERVAL µs, default 100). CC_BENCH_TURNS sets the number of
 * measured turns per phase (default 100); CC_BENCH_SERVER_FLAGS passes Node flags to the server
 * process (`--trace-gc`, `--trace-opt`…), for looking into a figure.
 *
 * Comparing two versions of a change: this machine's CPU figures drift by more than 10 % from one run
 * to the next, more than most changes are worth. With CC_BENCH_AB=1 the server process sets
 * `process.env.CC_AB` to '1' and '0' on alternate turns and the bench prints each half's medians: put
 * the change behind `process.env.CC_AB === '0'` while measuring it (never commit that), and whatever
 * the host does hits both versions alike.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../test/support/scripted-reply.js';
import { median, percentile, type BenchFigure } from './figure.js';

/** Measured turns per phase (CC_BENCH_TURNS). */
const TURNS = Number(process.env.CC_BENCH_TURNS ?? 100);
/** Turns between the first measured phase and the warm one (CC_BENCH_WARM_AFTER; 0: no warm phase). */
const WARM_AFTER = Number(process.env.CC_BENCH_WARM_AFTER ?? 1000);

interface ServerFigures {
  serverMs: number;
  childrenMs: number;
  otherThreadsMs: number;
  /** With CC_BENCH_AB: the value of CC_AB the server set before this turn. */
  ab?: string;
}

// This turn's results only: earlier turns' tool calls and results are in the history too (CTX-1).
const hasToolResult = (request: ScriptedRequest) => request.toolResults.length > 0;

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
    const turn = async (): Promise<{ wallMs: number; cpuMs: number; ab?: string }> => {
      model.script(oneShellCall(), oneShellCall());
      const before = await ask<ServerFigures>(child, { cpu: true });
      const started = performance.now();
      const posted = await api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation}/messages`, { text: 'run true once' });
      const runId = posted.body.run?.id as string | undefined;
      if (!runId) throw new Error(`no run: ${posted.status} ${JSON.stringify(posted.body).slice(0, 300)}`);
      const after = await ask<ServerFigures>(child, { wait: runId });
      const wallMs = performance.now() - started;
      model.reset();
      const run = (await api('GET', `/api/workspaces/${workspace.id}/runs/${runId}`)).body?.run;
      if (run?.state !== 'completed') throw new Error(`turn ended ${run?.state}: ${run?.error ?? JSON.stringify(run).slice(0, 300)}`);
      return { wallMs, cpuMs: after.serverMs - before.serverMs, ...(before.ab ? { ab: before.ab } : {}) };
    };
    /** `TURNS` measured turns, one after the other, as one conversation's turns; `prefix` names their figures. */
    const measure = async (prefix: string, profiled: boolean): Promise<BenchFigure[]> => {
      if (profiled) await ask(child, { profile: 'start' });
      const first = await ask<ServerFigures>(child, { cpu: true });
      const turns: Array<{ wallMs: number; cpuMs: number; ab?: string }> = [];
      for (let index = 0; index < TURNS; index += 1) turns.push(await turn());
      const last = await ask<ServerFigures>(child, { cpu: true });
      if (profiled) await ask(child, { profile: 'stop' });
      if (process.env.CC_BENCH_AB) {
        for (const ab of ['1', '0']) {
          const half = turns.filter((t) => t.ab === ab);
          console.log(`${prefix}CC_AB=${ab}: server cpu p50 ${median(half.map((t) => t.cpuMs)).toFixed(3)} ms, wall p50 ${median(half.map((t) => t.wallMs)).toFixed(2)} ms`);
        }
      }
      const wall = turns.map((t) => t.wallMs);
      const cpu = turns.map((t) => t.cpuMs);
      return [
        { metric: `${prefix}wall_p50`, value: median(wall), unit: 'ms' },
        { metric: `${prefix}wall_p90`, value: percentile(wall, 90), unit: 'ms' },
        { metric: `${prefix}server_cpu_p50`, value: median(cpu), unit: 'ms' },
        { metric: `${prefix}server_cpu_p90`, value: percentile(cpu, 90), unit: 'ms' },
        { metric: `${prefix}children_cpu_per_turn`, value: (last.childrenMs - first.childrenMs) / TURNS, unit: 'ms' },
        { metric: `${prefix}server_other_threads_cpu_per_turn`, value: (last.otherThreadsMs - first.otherThreadsMs) / TURNS, unit: 'ms' },
      ];
    };
    // Two warm-up turns create the checkout and start what is started once; the measured turns reuse them, as a conversation does.
    for (let index = 0; index < 2; index += 1) await turn();
    const fresh = await measure('tool_turn_', Boolean(profileDir) && WARM_AFTER === 0);
    if (WARM_AFTER === 0) return fresh;
    // A long-running server's figure: V8 optimizes a function only after it ran many times, and a
    // turn's functions run once or twice each, so its compiler keeps working for hundreds of turns.
    for (let index = 0; index < WARM_AFTER; index += 1) await turn();
    return [...fresh, ...(await measure('tool_turn_warm_', Boolean(profileDir)))];
  } finally {
    if (child.exitCode === null) await ask(child, { stop: true }).catch(() => undefined);
    await model.close();
    rmSync(repo, { recursive: true, force: true });
  }
}
