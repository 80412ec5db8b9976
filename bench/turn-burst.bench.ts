/**
 * NF-SCALE, bursts: N turns (BENCH_TURNS, default 1,000), each in its own conversation, POSTed all
 * at once (every request in flight together), to
 *   - one embedded `control-center serve` child process on SQLite, and
 *   - a `serve --role api` child process with 2 `control-center worker`s on PostgreSQL
 *     (BENCH_BURST_POSTGRES=0 skips it; it needs the test PostgreSQL server; BENCH_BURST_EMBEDDED=0
 *     skips the embedded half).
 * Figures: acceptance time (first POST sent → last 202 received; the target is < 3 s for 1,000),
 * the slowest single acceptance, and the time until every run is `completed` (each run one tool
 * turn on the built-in harness against the scripted model); on Linux also the CPU the serving process
 * used during the acceptance window, in all and per accepted POST (less swayed by the shared
 * machine's load than the wall time), and the CPU each worker used meanwhile. The bench fails when a
 * POST is not a 202, two answers name one run, or a run does not complete. The host's load average is
 * printed. BENCH_BURST_MARKS=1 prints the acceptance window in epoch ms, to line it up with a profile.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { startScriptedModelServer, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { startServeProcess, startWorkerProcess, type ServeProcess } from '../test/support/serve-process.js';
import { freshTestDatabase } from '../test/support/test-database.js';
import { makeDataRoot } from '../test/support/test-server.js';
import type { BenchFigure } from './figure.js';
import { oneToolTurn } from './one-tool-turn-load.js';

async function ok<T>(answer: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: HTTP ${status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * POSTs `body` as JSON with node's own HTTP client, every request on its own connection as `fetch`
 * would open them (a burst's clients are many). Not `fetch`: on this machine the bench shares the
 * cores with the server and the database, and `fetch` spent ~2 ms of CPU a request here (1.9 s of a
 * 5.8 s acceptance), against a fraction of that for `http.request`; the server's work is the same.
 */
function postJson<T>(server: ServeProcess, agent: Agent, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const sent = request(
      `${server.url}${path}`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'content-length': payload.length } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: response.statusCode ?? 0, body: (text ? JSON.parse(text) : null) as T });
        });
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}

/** The last lines a child process wrote (its log), so a failed bench shows the server's own error (a 500 says nothing). */
function outputTail(child: ChildProcess, keep = 40): () => string {
  const lines: string[] = [];
  const take = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - keep));
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return () => lines.join('\n');
}

/** Runs `work`; when it fails, the error carries the named processes' stderr tails. */
async function withTails<T>(children: Array<[string, ChildProcess]>, work: () => Promise<T>): Promise<T> {
  const tails = children.map(([name, child]) => [name, outputTail(child)] as const);
  try {
    return await work();
  } catch (error) {
    const told = tails.map(([name, tail]) => `--- ${name} output ---\n${tail() || '(nothing)'}`).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${told}`, { cause: error });
  }
}

/** CPU time (user + system, ms) a child process has used so far; null where /proc is not there (not Linux). */
function cpuMsOf(child: ChildProcess): number | null {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU time (ms) all the machine's `postgres` processes have used so far; null where /proc is not there. */
function postgresCpuMs(): number | null {
  try {
    let total = 0;
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const line = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!line.includes('(postgres)')) continue;
        const fields = line.split(') ')[1]!.split(' ');
        total += (Number(fields[11]) + Number(fields[12])) * 10;
      } catch {
        // The process ended between the listing and the read.
      }
    }
    return total;
  } catch {
    return null;
  }
}

/**
 * CPU the given processes used while `work` ran (ms each; null where unknown), with this (client)
 * process's own and the database server's: on one machine they all share its cores, so a slow
 * acceptance can be told apart as the server's own cost or its neighbours'.
 */
async function cpuDuring<T>(children: ChildProcess[], work: () => Promise<T>): Promise<{ result: T; cpuMs: Array<number | null>; clientCpuMs: number; postgresCpuMs: number | null }> {
  const before = children.map(cpuMsOf);
  const clientBefore = process.cpuUsage();
  const postgresBefore = postgresCpuMs();
  const result = await work();
  const cpuMs = children.map((child, index) => {
    const after = cpuMsOf(child);
    const start = before[index];
    return after === null || start === null || start === undefined ? null : after - start;
  });
  const client = process.cpuUsage(clientBefore);
  const postgresAfter = postgresCpuMs();
  return { result, cpuMs, clientCpuMs: (client.user + client.system) / 1000, postgresCpuMs: postgresAfter === null || postgresBefore === null ? null : postgresAfter - postgresBefore };
}

/**
 * Creates the conversations (not timed), posts one turn to each at once, then waits for every run to
 * complete. `watched`: processes whose CPU during the acceptance window is reported (the serving
 * process first).
 */
async function burst(serve: ServeProcess, model: ScriptedModelServer, turns: number, watched: ChildProcess[]): Promise<{ acceptMs: number; slowestMs: number; completeMs: number; acceptCpuMs: Array<number | null>; clientCpuMs: number; acceptPostgresCpuMs: number | null }> {
  const workspaceId = (await ok(serve.api<{ id: string }>('POST', '/api/workspaces', { name: 'Burst' }), 'create workspace')).id;
  // Creating a workspace seeds it in the background; a second seed (POST /seed) racing it fails on the
  // agents' unique names (seen as a 409 or a 500 under load), so the bench waits for that one instead.
  while ((await ok(serve.api<{ seeding: string }>('GET', `/api/workspaces/${workspaceId}`), 'read workspace')).seeding !== 'done') await new Promise((resolve) => setTimeout(resolve, 100));
  const spaceId = (await ok(serve.api<{ id: string }>('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Work' }), 'create space')).id;
  const conversationIds: string[] = [];
  for (let index = 0; index < turns; index += 1) {
    conversationIds.push((await ok(serve.api<{ id: string }>('POST', `/api/workspaces/${workspaceId}/spaces/${spaceId}/conversations`, { title: `Burst ${index}` }), 'create conversation')).id);
  }
  model.script(...Array.from({ length: turns * 2 }, oneToolTurn));
  // As many sockets as requests: every POST is in flight at once, as with fetch's own pool.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  let slowestMs = 0;
  const startedMonotonicUs = process.hrtime.bigint() / 1000n;
  const started = performance.now();
  const { result: answers, cpuMs: acceptCpuMs, clientCpuMs, postgresCpuMs: acceptPostgresCpuMs } = await cpuDuring(watched, () =>
    Promise.all(
      conversationIds.map(async (conversationId, index) => {
        const sent = performance.now();
        const answer = await postJson<{ run: { id: string } }>(serve, agent, `/api/workspaces/${workspaceId}/conversations/${conversationId}/messages`, { text: `burst ${index}` });
        slowestMs = Math.max(slowestMs, performance.now() - sent);
        return answer;
      }),
    ),
  );
  const acceptMs = performance.now() - started;
  agent.destroy();
  if (process.env.BENCH_BURST_MARKS === '1') console.error(`burst acceptance window: ${Date.now() - acceptMs} → ${Date.now()} (monotonic µs, as in a V8 CPU profile: ${startedMonotonicUs} → ${process.hrtime.bigint() / 1000n})`);
  const refused = answers.filter((answer) => answer.status !== 202);
  if (refused.length > 0) throw new Error(`${refused.length} turns were not accepted: ${JSON.stringify(refused[0])}`);
  const runIds = new Set(answers.map((answer) => answer.body.run.id));
  if (runIds.size !== turns) throw new Error(`${turns} turns accepted but ${runIds.size} distinct runs`);
  // Runs of the burst's space by state (the list caps at 500 rows: states that must end up empty are counted).
  const inState = async (state: string) =>
    (await ok(serve.api<{ runs: unknown[] }>('GET', `/api/workspaces/${workspaceId}/runs?spaceId=${spaceId}&state=${state}&limit=500`), 'list runs')).runs.length;
  while ((await inState('queued')) + (await inState('running')) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  const completeMs = performance.now() - started;
  const notCompleted = (await inState('failed')) + (await inState('cancelled'));
  if (notCompleted > 0) throw new Error(`${notCompleted} runs did not complete`);
  return { acceptMs, slowestMs, completeMs, acceptCpuMs, clientCpuMs, acceptPostgresCpuMs };
}

/** The serving process's CPU over the acceptance window, in all and per accepted POST (absent where not measurable). */
function cpuFigures(who: string, cpuMs: number | null | undefined, turns: number): BenchFigure[] {
  if (cpuMs === null || cpuMs === undefined) return [];
  return [
    { metric: `cpu_during_acceptance_${who}`, value: cpuMs, unit: 'ms' },
    { metric: `cpu_per_accepted_post_${who}`, value: cpuMs / turns, unit: 'ms' },
  ];
}

export default async function turnBurstBench(): Promise<BenchFigure[]> {
  const turns = Number(process.env.BENCH_TURNS ?? 1_000);
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  const model = await startScriptedModelServer();
  try {
    // An empty database URL: the embedded SQLite store even when the environment names a PostgreSQL one.
    if (process.env.BENCH_BURST_EMBEDDED !== '0') {
      const embedded = await startServeProcess({ ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: '' }, ['--no-default-workspace', '--log-level', 'warn']);
      try {
        const figure = await withTails([['serve', embedded.child]], () => burst(embedded, model, turns, [embedded.child]));
        figures.push(
          { metric: `accept_${turns}_turns_embedded_sqlite`, value: figure.acceptMs, unit: 'ms' },
          ...cpuFigures('embedded_serve', figure.acceptCpuMs[0], turns),
          { metric: 'cpu_during_acceptance_embedded_client', value: figure.clientCpuMs, unit: 'ms' },
          { metric: 'slowest_accept_embedded_sqlite', value: figure.slowestMs, unit: 'ms' },
          { metric: `all_${turns}_completed_embedded_sqlite`, value: figure.completeMs, unit: 'ms' },
          { metric: 'load_average_1m_after_embedded', value: loadavg()[0]!, unit: '' },
        );
      } finally {
        await embedded.stop();
      }
    }
    if (process.env.BENCH_BURST_POSTGRES !== '0') {
      model.reset();
      const database = await freshTestDatabase();
      const env = { ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: database.url };
      const workers: ChildProcess[] = [];
      const api = await startServeProcess(env, ['--role', 'api', '--no-default-workspace', '--log-level', 'warn']);
      try {
        for (let index = 0; index < 2; index += 1) workers.push(await startWorkerProcess(['--data-dir', await makeDataRoot(), '--grace-seconds', '0', '--log-level', 'warn'], env));
        const figure = await withTails([['api', api.child], ...workers.map((worker, index): [string, ChildProcess] => [`worker ${index + 1}`, worker])], () => burst(api, model, turns, [api.child, ...workers]));
        figures.push(
          { metric: `accept_${turns}_turns_api_2_workers_postgres`, value: figure.acceptMs, unit: 'ms' },
          ...cpuFigures('postgres_api', figure.acceptCpuMs[0], turns),
          ...figure.acceptCpuMs.slice(1).flatMap((cpuMs, index) => (cpuMs === null ? [] : [{ metric: `cpu_during_acceptance_postgres_worker_${index + 1}`, value: cpuMs!, unit: 'ms' }])),
          { metric: 'cpu_during_acceptance_postgres_client', value: figure.clientCpuMs, unit: 'ms' },
          ...(figure.acceptPostgresCpuMs === null ? [] : [{ metric: 'cpu_during_acceptance_postgres_server', value: figure.acceptPostgresCpuMs, unit: 'ms' }]),
          { metric: 'slowest_accept_api_2_workers_postgres', value: figure.slowestMs, unit: 'ms' },
          { metric: `all_${turns}_completed_api_2_workers_postgres`, value: figure.completeMs, unit: 'ms' },
          { metric: 'load_average_1m_after_postgres', value: loadavg()[0]!, unit: '' },
        );
      } finally {
        for (const worker of workers) worker.kill('SIGKILL');
        await api.stop();
        await database.drop();
      }
    }
  } finally {
    await model.close();
  }
  return figures;
}
