/**
 * What the Grok transport (RLY-7) adds per turn, against the same `@vibe-kit/grok-cli` headless run
 * bare on the same scripted session:
 * - turn wall time: bare (node + the CLI with the preload — without its Ink stub the CLI cannot start
 *   from this `node_modules` — talking to the model server directly, in a temporary HOME) vs the
 *   transport (runner directories, the conversation's transcript, model proxy with the run token and
 *   the broker), both without bubblewrap;
 * - memory per idle session: the resident size of a CLI process idling while it waits on its model
 *   (what a design keeping one process per idle conversation would cost; this transport keeps none).
 * Medians; the model is the scripted model server (no latency of its own).
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GROK_PRELOAD_VARIABLES, grokPreloadSource } from '../src/adapters/grok/grok-preload.js';
import { GrokTransport } from '../src/adapters/grok/grok-transport.js';
import { startClaudeCodeFixture } from '../test/support/claude-code-fixture.js';
import { reply, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { median, type BenchFigure } from './figure.js';
import { benchRunContext } from './relay-run-context.js';

const RUNS = 3;
const CALLS_PER_TURN = 2;

function scriptTurn(model: ScriptedModelServer): void {
  model.script(...Array.from({ length: CALLS_PER_TURN }, () => reply().tool('bash', { command: 'true' })), reply().text('done'));
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

/** Starts the bare CLI on one prompt; resolves when it exits. */
async function bareCli(model: ScriptedModelServer, cwd: string): Promise<{ pid: number; exited: Promise<number | null>; cleanup: () => Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'grok-bench-home-'));
  const entry = realpathSync(new URL(import.meta.resolve('@vibe-kit/grok-cli')).pathname);
  const preload = join(home, 'preload.mjs');
  await writeFile(preload, grokPreloadSource(`${pathToFileURL(dirname(entry)).href}/`));
  await writeFile(join(home, 'prompt.txt'), 'go');
  const child = spawn(process.execPath, ['--import', pathToFileURL(preload).href, entry, '--directory', cwd, '--model', 'grok-code-fast-1'], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home, GROK_API_KEY: 'k', GROK_BASE_URL: `${model.url}/v1`, [GROK_PRELOAD_VARIABLES.prompt]: join(home, 'prompt.txt') },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { pid: child.pid ?? 0, exited, cleanup: () => rm(home, { recursive: true, force: true }) };
}

export default async function relayGrokBench(): Promise<BenchFigure[]> {
  const fixture = await startClaudeCodeFixture({ mode: 'chat' });
  const scratch = await mkdtemp(join(tmpdir(), 'grok-bench-'));
  const figures: BenchFigure[] = [];
  try {
    const worktree = join(scratch, 'worktree');
    await mkdir(worktree, { recursive: true });
    const agent = (await fixture.api('GET', `/api/workspaces/${fixture.workspaceId}/agents/${fixture.agentId}`)).body;
    const transport = new GrokTransport({ hookSessions: fixture.app.hookSessions, sandbox: 'none', allowUnsandboxed: true });
    const series = { bare: [] as number[], transport: [] as number[] };
    for (let index = 0; index < RUNS; index += 1) {
      scriptTurn(fixture.model);
      const started = performance.now();
      const bare = await bareCli(fixture.model, worktree);
      const code = await bare.exited;
      series.bare.push(performance.now() - started);
      await bare.cleanup();
      if (code !== 0) throw new Error(`bare grok-cli exited ${code}`);
      scriptTurn(fixture.model);
      const { context, close } = benchRunContext(fixture, { runId: `run_grok_bench_${index}`, agent, worktree, scratch, provider: 'xai' });
      const begun = performance.now();
      const result = await transport.run(context);
      series.transport.push(performance.now() - begun);
      close();
      if (result.outcome !== 'completed') throw new Error(`bench turn failed: ${result.error}`);
    }
    // Idle: a CLI waiting on a model that does not answer yet.
    fixture.model.script(reply().hang());
    const idle = await bareCli(fixture.model, worktree);
    await fixture.model.waitForRequests(fixture.model.requests.length + 1, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idleRss = rssMb(idle.pid);
    process.kill(idle.pid, 'SIGKILL');
    await idle.exited;
    await idle.cleanup();
    figures.push({ metric: 'turn_bare_grok_cli_ms', value: median(series.bare), unit: 'ms' });
    figures.push({ metric: 'turn_grok_transport_ms', value: median(series.transport), unit: 'ms' });
    figures.push({ metric: 'turn_grok_transport_overhead_ms', value: median(series.transport) - median(series.bare), unit: 'ms' });
    figures.push({ metric: 'idle_session_grok_cli_rss_mb', value: idleRss, unit: 'MB' });
  } finally {
    await fixture.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
  return figures;
}
