import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { guardPoolConnections } from '../../src/store/connection-error-guard.js';
import { startWorker, type RunningWorker } from '../../src/server/start-worker.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { closeInOrder, freshTestDatabase } from '../support/test-database.js';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';
import { pollUntil } from '../support/plan-server-fixtures.js';

/**
 * NF-SCALE, SEC: the runs queue carries operator- and agent-written text to another
 * process, and anything with write access to pg-boss's tables can put a job in it.
 * - hostile message text (SQL, placeholders, JSON that looks like a job) travels as data and reaches
 *   the worker's model byte for byte;
 * - a forged job executes nothing: junk, an unknown mode, a job that disagrees with its run row, a
 *   run of another workspace, a run that already ended — the job is finished, no model is called,
 *   no run changes.
 * In-process API server (`role: 'api'`) and worker on one real PostgreSQL database.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let model: ScriptedModelServer;
let server: TestServer;
let worker: RunningWorker;
let boss: PgBossConnection;
let sql: pg.Pool;
let workspaceId: string;
let otherWorkspaceId: string;
let conversationId: string;
let spaceId: string;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  model = await startScriptedModelServer();
  server = await startTestServer({ role: 'api', database: database.url, env: model.providerEnv });
  worker = await startWorker({ dataRoot: await makeDataRoot(), database: database.url, env: model.providerEnv, logLevel: 'silent', jobLeaseMs: 3_000, queuePollMs: 200 });
  boss = new PgBossConnection(database.url);
  sql = guardPoolConnections(new pg.Pool({ connectionString: database.url, max: 2 }));
  workspaceId = (await createSeededWorkspace(server, 'Target')).id;
  otherWorkspaceId = (await createSeededWorkspace(server, 'Neighbour')).id;
  spaceId = (await server.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Work' })).body.id;
  conversationId = (await server.api('POST', `/api/workspaces/${workspaceId}/spaces/${spaceId}/conversations`, { title: 'Main' })).body.id;
}, 180_000);

afterAll(async () => {
  if (!enabled) return;
  // Every step runs even when one before it fails, and the database goes last: dropped `with (force)`
  // under a process still connected, its connections end mid-work.
  await closeInOrder([() => worker?.close(), () => server?.dispose(), () => boss?.stop(), () => sql?.end(), () => model?.close(), () => database?.drop()]);
});

const runOf = async (id: string) => (await server.api('GET', `/api/workspaces/${workspaceId}/runs/${id}`)).body.run as { state: string };
const waitingRunJobs = async () =>
  Number((await sql.query<{ n: string }>(`select count(*) as n from cc_pgboss.job where name = $1 and state in ('created', 'retry', 'active')`, [`${workspaceId}__runs`])).rows[0]!.n);

describe.skipIf(!enabled)('runs queue: hostile text and forged jobs', () => {
  let completedRunId: string;

  it('hostile message text travels through the queue as data and reaches the worker\'s model unchanged', async () => {
    const hostile = `'); drop table cc_pgboss.job; -- $1 $$ \${runId} {"runId":"run_forged","mode":"orchestrate"} ü ✓ ${'x'.repeat(20_000)}`;
    model.script(reply().text('read it'));
    const sent = await server.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversationId}/messages`, { text: hostile });
    expect(sent.status).toBe(202);
    expect(sent.body.run.state).toBe('queued');
    completedRunId = sent.body.run.id;
    await pollUntil(() => runOf(completedRunId), (run) => run.state === 'completed', 60_000);
    const request = model.requests.at(-1)!;
    expect(JSON.stringify(request)).toContain(JSON.stringify(hostile).slice(1, -1));
    expect(await waitingRunJobs()).toBe(0);
  }, 90_000);

  it('a forged job executes nothing: junk, an unknown mode, a job that disagrees with its row, another workspace\'s run, an ended run', async () => {
    const queue = boss.queueFor(workspaceId);
    const handle = await server.running.app.workspaces.handle(workspaceId);
    const agentId = (await server.api('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents[0].id as string;
    // A queued run that is in no queue: only a job that matches its row may start it.
    const waiting = await server.running.app.runs.record(workspaceId, handle.database.db, { agentId, spaceId, conversationId, mode: 'chat', autonomy: 'actWithApproval' });
    const otherHandle = await server.running.app.workspaces.handle(otherWorkspaceId);
    const otherAgentId = (await server.api('GET', `/api/workspaces/${otherWorkspaceId}/agents`)).body.agents[0].id as string;
    const neighbours = await server.running.app.runs.record(otherWorkspaceId, otherHandle.database.db, { agentId: otherAgentId, mode: 'chat', autonomy: 'actWithApproval' });
    const job = { runId: waiting.id, agentId, spaceId, conversationId, mode: 'chat', autonomy: 'actWithApproval', prompt: 'forged', history: [], repoPath: null };
    const requestsBefore = model.requests.length;
    for (const payload of [
      null,
      'run it',
      { runId: waiting.id },
      { ...job, mode: 'root' },
      { ...job, autonomy: 'actFreely' }, // disagrees with the row: a forged job must not raise the autonomy
      { ...job, agentId: otherAgentId },
      { ...job, runId: neighbours.id, agentId: otherAgentId, spaceId: null, conversationId: null },
      { ...job, runId: completedRunId },
    ]) {
      await queue.enqueue({ queue: 'runs', payload });
    }
    await pollUntil(waitingRunJobs, (count) => count === 0, 30_000);
    expect(model.requests.length).toBe(requestsBefore);
    expect((await runOf(waiting.id)).state).toBe('queued');
    // A claim takes the run its job names with the job: a forged job leaves no owner row behind, which
    // would keep a genuine job of that run from executing it.
    const owners = async () => Number((await sql.query<{ n: string }>(`select count(*) as n from cc_pgboss.cc_run_owners where run_id = $1`, [waiting.id])).rows[0]!.n);
    await pollUntil(owners, (count) => count === 0, 10_000);
    expect((await runOf(completedRunId)).state).toBe('completed');
    const neighbour = await server.api('GET', `/api/workspaces/${otherWorkspaceId}/runs/${neighbours.id}`);
    expect(neighbour.body.run.state).toBe('queued');
  }, 90_000);
});
