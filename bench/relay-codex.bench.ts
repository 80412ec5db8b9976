/**
 * What the Codex transport (RLY-7) adds per turn, against the same `codex app-server` binary driven
 * bare on the same scripted session:
 * - turn wall time: bare (the model server directly, `approval_policy = "never"`, full access, no MCP)
 *   vs the transport (server-owned CODEX_HOME, model proxy with the run token, the Control Center MCP
 *   server configured, every command escalated through the real policy engine), without bubblewrap;
 * - memory per idle session: the resident size of an app-server process idling after a turn (what a
 *   design keeping one process per idle conversation would cost; this transport keeps none).
 * Medians; the model is the scripted model server (no latency of its own).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCodexBinary } from '../src/adapters/codex/codex-binary.js';
import { CodexTransport } from '../src/adapters/codex/codex-transport.js';
import { JsonRpcStdio } from '../src/adapters/codex/json-rpc-stdio.js';
import { reply, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { median, type BenchFigure } from './figure.js';
import { rssMb, timedTransportTurn, turnFigures, withRelayBench } from './relay-run-context.js';

const RUNS = 3;
const CALLS_PER_TURN = 4;

function scriptTurn(model: ScriptedModelServer): void {
  model.script(...Array.from({ length: CALLS_PER_TURN }, () => reply().tool('exec_command', { cmd: 'true', sandbox_permissions: 'require_escalated', justification: 'bench' })), reply().text('done'));
}

/** One bare app-server turn; the process's RSS is read after the turn, while it idles. */
async function bareTurn(model: ScriptedModelServer, cwd: string): Promise<{ wallMs: number; idleRssMb: number }> {
  const home = await mkdtemp(join(tmpdir(), 'codex-bench-home-'));
  await writeFile(
    join(home, 'config.toml'),
    ['model = "gpt-5.4"', 'model_provider = "bench"', 'approval_policy = "never"', 'sandbox_mode = "danger-full-access"', '[analytics]', 'enabled = false', '[model_providers.bench]', 'name = "bench"', `base_url = "${model.openaiBaseUrl}"`, 'env_key = "BENCH_KEY"', 'wire_api = "responses"', ''].join('\n'),
  );
  const codex = resolveCodexBinary(process.env);
  const started = performance.now();
  const child = spawn(codex.binary, ['app-server'], { cwd, env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, BENCH_KEY: 'k' }, stdio: ['pipe', 'pipe', 'ignore'] });
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const rpc = new JsonRpcStdio(child.stdin, child.stdout, {
    notification: (method) => {
      if (method === 'turn/completed') done();
    },
    request: async () => ({ decision: 'accept' }),
    malformed: () => undefined,
  });
  await rpc.request('initialize', { clientInfo: { name: 'bench', title: null, version: '0' }, capabilities: { experimentalApi: true, requestAttestation: false } });
  rpc.notify('initialized');
  const thread = await rpc.request<{ thread: { id: string } }>('thread/start', { cwd });
  await rpc.request('turn/start', { threadId: thread.thread.id, input: [{ type: 'text', text: 'go', text_elements: [] }] });
  await finished;
  const wallMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idleRssMb = child.pid ? rssMb(child.pid) : 0;
  child.kill('SIGKILL');
  await rm(home, { recursive: true, force: true });
  return { wallMs, idleRssMb };
}

export default function relayCodexBench(): Promise<BenchFigure[]> {
  return withRelayBench('codex', async ({ fixture, scratch, worktree, agent }) => {
    const transportTurn = (index: number): Promise<number> =>
      timedTransportTurn(fixture, new CodexTransport({ hookSessions: fixture.app.hookSessions, sandbox: 'none', allowUnsandboxed: true, askUser: async () => [] }), { runId: `run_codex_bench_${index}`, agent, worktree, scratch });
    const series = { bare: [] as number[], transport: [] as number[], idle: [] as number[] };
    for (let index = 0; index < RUNS; index += 1) {
      scriptTurn(fixture.model);
      const bare = await bareTurn(fixture.model, worktree);
      series.bare.push(bare.wallMs);
      series.idle.push(bare.idleRssMb);
      scriptTurn(fixture.model);
      series.transport.push(await transportTurn(index));
    }
    return [
      { metric: 'turn_bare_codex_ms', value: median(series.bare), unit: 'ms' },
      ...turnFigures('turn_codex_transport', series.bare, series.transport),
      { metric: 'idle_session_codex_app_server_rss_mb', value: median(series.idle), unit: 'MB' },
    ];
  });
}
