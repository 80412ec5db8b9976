/**
 * The cost of one tool turn on the built-in harness, end to end through the real server: a message
 * whose scripted model asks for one `bash` call (`true`), then answers. The space has a git
 * repository, so the conversation's checkout, the sandbox and the push-proxy wiring are all on the
 * path. Figures:
 * - tool_turn_wall_p50 / p90: from POST of the message to the run's end;
 * - tool_turn_server_cpu_p50: CPU of this process (user + system) per turn. The scripted model
 *   server runs in the same process, so this is an upper bound on the server's own share; child
 *   processes (git, bubblewrap, bash) are not counted here;
 * - tool_turn_children_cpu_per_turn: CPU of the finished child processes per turn (getrusage of
 *   children), which is where the sandbox and git costs land.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../test/support/scripted-reply.js';
import { createSeededWorkspace, startTestServer } from '../test/support/test-server.js';
import { median, percentile, type BenchFigure } from './figure.js';

const TURNS = 20;

const hasToolResult = (request: ScriptedRequest) => JSON.stringify(request.body?.messages ?? []).includes('"tool_result"');

/** One shell call, then an answer. */
const oneShellCall = () => reply((request) => (hasToolResult(request) ? reply().text('done') : reply().tool('bash', { command: 'true' })));

/** CPU of this process's finished children (cutime + cstime from /proc; NaN elsewhere), in ms. */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5); 13 and 14 once the pid and the command name are cut off. USER_HZ is 100.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

export default async function toolTurn(): Promise<BenchFigure[]> {
  const repo = mkdtempSync(join(tmpdir(), 'cc-bench-turn-repo-'));
  execFileSync('git', ['init', '--quiet', '-b', 'main', repo]);
  for (let index = 0; index < 50; index += 1) writeFileSync(join(repo, `file-${index}.txt`), `line ${index}\n`);
  execFileSync('git', ['-C', repo, 'add', '.']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@localhost', 'commit', '--quiet', '-m', 'init']);

  const model = await startScriptedModelServer();
  const server = await startTestServer({ env: { ...model.providerEnv }, modelMaxRetries: 0 });
  try {
    const workspace = await createSeededWorkspace(server, 'Bench');
    const space = await server.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'bench', autonomy: 'actFreely', repoPath: repo });
    if (space.status !== 201 && space.status !== 200) throw new Error(`space: ${space.status} ${JSON.stringify(space.body)}`);
    const conversation = (await server.api('POST', `/api/workspaces/${workspace.id}/spaces/${space.body.id}/conversations`, {})).body.id;
    const wall: number[] = [];
    const cpu: number[] = [];
    const childrenBefore = childrenCpuMs();
    // One warm-up turn creates the checkout; the measured turns reuse it, as a conversation does.
    for (let turn = -1; turn < TURNS; turn += 1) {
      model.script(oneShellCall(), oneShellCall());
      const cpuStart = process.cpuUsage();
      const started = performance.now();
      const posted = await server.api('POST', `/api/workspaces/${workspace.id}/conversations/${conversation}/messages`, { text: 'run true once' });
      const active = server.running.app.activeRuns.get(posted.body.run?.id);
      if (!active) throw new Error(`no active run: ${posted.status} ${JSON.stringify(posted.body).slice(0, 300)}`);
      await active.finished;
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(cpuStart);
      model.reset();
      const run = (await server.api('GET', `/api/workspaces/${workspace.id}/runs/${posted.body.run.id}`)).body?.run;
      if (run?.state !== 'completed') throw new Error(`turn ended ${run?.state}: ${run?.error ?? JSON.stringify(run).slice(0, 300)}`);
      if (turn >= 0) {
        wall.push(elapsed);
        cpu.push((used.user + used.system) / 1000);
      }
    }
    const childrenPerTurn = (childrenCpuMs() - childrenBefore) / (TURNS + 1);
    return [
      { metric: 'tool_turn_wall_p50', value: median(wall), unit: 'ms' },
      { metric: 'tool_turn_wall_p90', value: percentile(wall, 90), unit: 'ms' },
      { metric: 'tool_turn_server_cpu_p50', value: median(cpu), unit: 'ms' },
      { metric: 'tool_turn_children_cpu_per_turn', value: childrenPerTurn, unit: 'ms' },
    ];
  } finally {
    await server.dispose();
    await model.close();
    rmSync(repo, { recursive: true, force: true });
  }
}
