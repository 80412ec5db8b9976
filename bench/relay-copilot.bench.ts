/**
 * What the Copilot transports (RLY-7) add per turn, against the same `@github/copilot` runtime driven
 * bare through `@github/copilot-sdk` on the same scripted session:
 * - turn wall time: bare (the SDK straight to the model server as its BYOK provider, every permission
 *   approved, no MCP server, no system prompt) vs the SDK engine (`copilot`: agentMode, every
 *   permission request through the real policy engine) and the extension engine (`copilot-extension`:
 *   the RLY-8 line, everything approved) — both with the run directories, the model proxy with the run
 *   token and the Control Center MCP server configured, without bubblewrap;
 * - memory per idle session: the resident size of a runtime process idling after a turn (what a design
 *   keeping one runtime per idle conversation would cost; these transports keep none).
 * Medians; the model is the scripted model server (no latency of its own). The runtime's unpacked
 * package is cached once (as the tests do), so no run pays for unpacking it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopilotClient, RuntimeConnection } from '@github/copilot-sdk';
import { resolveCopilotRuntime } from '../src/adapters/copilot/copilot-runtime.js';
import { CopilotTransport } from '../src/adapters/copilot/copilot-transport.js';
import { reply, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { median, type BenchFigure } from './figure.js';
import { rssMb, timedTransportTurn, turnFigures, withRelayBench } from './relay-run-context.js';

const RUNS = 3;
const CALLS_PER_TURN = 4;
const MODEL = 'gpt-5.4';
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

function scriptTurn(model: ScriptedModelServer): void {
  model.script(...Array.from({ length: CALLS_PER_TURN }, () => reply().tool('bash', { command: 'true', description: 'bench' })), reply().text('done'));
}

/** One bare runtime turn; the runtime's RSS is read after the turn, while it idles. */
async function bareTurn(model: ScriptedModelServer, cwd: string): Promise<{ wallMs: number; idleRssMb: number }> {
  const home = await mkdtemp(join(tmpdir(), 'copilot-bench-home-'));
  const runtime = resolveCopilotRuntime(process.env);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    COPILOT_HOME: join(home, '.copilot'),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_WIRE_API: 'responses',
    COPILOT_PROVIDER_BASE_URL: model.openaiBaseUrl,
    COPILOT_PROVIDER_API_KEY: 'k',
    COPILOT_MODEL: MODEL,
    XDG_CACHE_HOME: runtimeCacheDir,
  };
  const started = performance.now();
  const client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: runtime.binary, args: [], env }), workingDirectory: cwd, useLoggedInUser: false, logLevel: 'error' });
  try {
    await client.start();
    const session = await client.createSession({
      clientName: 'bench',
      model: MODEL,
      workingDirectory: cwd,
      provider: { type: 'openai', wireApi: 'responses', baseUrl: model.openaiBaseUrl, apiKey: 'k' },
      enableSessionTelemetry: false,
      onPermissionRequest: async () => ({ kind: 'approve-once' }),
    });
    const idle = new Promise<void>((resolve) => session.on('session.idle', () => resolve()));
    await session.send({ prompt: 'go', agentMode: 'interactive' });
    await idle;
    const wallMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const child = (client as unknown as { cliProcess?: ChildProcess | null }).cliProcess;
    return { wallMs, idleRssMb: child?.pid ? rssMb(child.pid) : 0 };
  } finally {
    await client.forceStop().catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  }
}

export default function relayCopilotBench(): Promise<BenchFigure[]> {
  return withRelayBench('copilot', async ({ fixture, scratch, worktree, agent }) => {
    await mkdir(runtimeCacheDir, { recursive: true });
    const transportTurn = (engine: 'sdk' | 'extension', index: number): Promise<number> =>
      timedTransportTurn(fixture, new CopilotTransport({ engine, hookSessions: fixture.app.hookSessions, sandbox: 'none', allowUnsandboxed: true, askUser: async () => [], runtimeCacheDir }), {
        runId: `run_copilot_${engine}_bench_${index}`,
        agent,
        worktree,
        scratch,
      });
    // A first bare turn warms the runtime's unpacked cache; it is not counted.
    scriptTurn(fixture.model);
    await bareTurn(fixture.model, worktree);
    const series = { bare: [] as number[], sdk: [] as number[], extension: [] as number[], idle: [] as number[] };
    for (let index = 0; index < RUNS; index += 1) {
      scriptTurn(fixture.model);
      const bare = await bareTurn(fixture.model, worktree);
      series.bare.push(bare.wallMs);
      series.idle.push(bare.idleRssMb);
      scriptTurn(fixture.model);
      series.sdk.push(await transportTurn('sdk', index));
      scriptTurn(fixture.model);
      series.extension.push(await transportTurn('extension', index));
    }
    return [
      { metric: 'turn_bare_copilot_runtime_ms', value: median(series.bare), unit: 'ms' },
      ...turnFigures('turn_copilot_sdk_engine', series.bare, series.sdk),
      ...turnFigures('turn_copilot_extension_engine', series.bare, series.extension),
      { metric: 'idle_session_copilot_runtime_rss_mb', value: median(series.idle), unit: 'MB' },
    ];
  });
}
