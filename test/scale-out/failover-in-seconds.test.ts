import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHARED_LEASE_MS, heartbeatPeriodMs } from '../../src/services/cluster/failover-timing.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { startServeProcess, startWorkerProcess, type ServeProcess } from '../support/serve-process.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * SPEC §15 (NF-SCALE), PIPE-1, AG-5: failover in seconds, with real child processes on one
 * PostgreSQL database — one `serve --role api` and two `worker`s started with the DEFAULT lease (no
 * `--lease-seconds`), each talking to its own scripted model server. Worker A alone executes a
 * pipeline's long step and a conversation's turn that never ends; worker B joins; A gets `kill -9`.
 * Then: A's death is recorded by the survivor within the lease (the processes' own recorded times,
 * on the database's clock), the pipeline completes with its side-effecting steps run once, the run A
 * executed is failed/dead with its cause named, and the conversation's next turn runs on B.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
const roots: string[] = [];
const children: ChildProcess[] = [];
const models: ScriptedModelServer[] = [];

/** Starts a worker with the default lease, talking to `env`'s model server. */
async function startWorker(root: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = await startWorkerProcess(['--data-dir', root, '--grace-seconds', '0'], { ...env, CONTROL_CENTER_DATABASE_URL: database.url });
  children.push(child);
  return child;
}

/** The processes' liveness rows, as every process reads them. */
async function processRows(): Promise<Array<{ process_id: string; heartbeat_at: Date; noticed_dead_at: Date | null; stale_ms: string }>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query('select process_id, heartbeat_at, noticed_dead_at, stale_ms from cc_pgboss.cc_processes')).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)));
  for (const model of models) await model.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
  if (enabled) await database.drop();
});

describe.skipIf(!enabled)('failover in seconds: a worker killed mid-step', () => {
  it('kill -9: the death is recorded within the lease, the pipeline completes without doubled side effects, the run is dead with its cause and the conversation goes on elsewhere', async () => {
    const apiModel = await startScriptedModelServer();
    const modelA = await startScriptedModelServer();
    const modelB = await startScriptedModelServer();
    models.push(apiModel, modelA, modelB);
    const apiProcess: ServeProcess = await startServeProcess({ ...apiModel.providerEnv, CONTROL_CENTER_DATABASE_URL: database.url }, ['--role', 'api', '--no-default-workspace']);
    children.push(apiProcess.child);
    roots.push(apiProcess.dataRoot);
    const api = (method: string, path: string, body?: unknown) => apiProcess.api(method, path, body);
    const rootA = await makeDataRoot();
    const rootB = await makeDataRoot();
    roots.push(rootA, rootB);

    // Worker A alone: whatever is claimed now is A's.
    const workerA = await startWorker(rootA, modelA.providerEnv);
    const ws = (await api('POST', '/api/workspaces', { name: 'Failover' })).body.id as string;
    await pollUntil(() => api('GET', `/api/workspaces/${ws}`), (response) => response.body.seeding === 'done', 60_000);
    const [processA] = await pollUntil(processRows, (rows) => rows.length === 1, 30_000);
    expect(Number(processA!.stale_ms)).toBe(DEFAULT_SHARED_LEASE_MS);

    const hanging = modelA.scriptFor('hang on worker A', reply().text('working').hang());
    modelB.scriptFor('after the kill', reply().text('the survivor answers'));
    const spaceId = (await api('POST', `/api/workspaces/${ws}/spaces`, { name: 'Work' })).body.id as string;
    const conversationId = (await api('POST', `/api/workspaces/${ws}/spaces/${spaceId}/conversations`, { title: 'Failover' })).body.id as string;
    const turn = await api('POST', `/api/workspaces/${ws}/conversations/${conversationId}/messages`, { text: 'hang on worker A' });
    expect(turn.status).toBe(202);
    const runId = turn.body.run.id as string;
    await pollUntil(async () => hanging.requests.length, (count) => count > 0, 60_000);

    const created = await api('POST', `/api/workspaces/${ws}/pipelines`, {
      name: 'failover',
      nodes: [
        { key: 'first', type: 'bashScript', script: 'echo ran >> first.log' },
        // Holds for good on A (its scratch lies under A's data root), so A is surely executing it when killed; runs through on B.
        { key: 'long', type: 'bashScript', dependsOn: ['first'], idempotent: true, script: `echo started >> long.log; case "$PWD" in ${rootA}/*) sleep 600;; esac; echo finished >> long.log` },
        { key: 'last', type: 'bashScript', dependsOn: ['long'], script: 'echo ran >> last.log' },
      ],
    });
    expect(created.status).toBe(201);
    const started = await api('POST', `/api/workspaces/${ws}/pipelines/${created.body.pipeline.id}/runs`, {});
    expect(started.status).toBe(201);
    const pipelineRunId = started.body.id as string;
    const scratch = (root: string, key: string, file: string) => readFile(join(root, 'workspaces', ws, 'pipeline-scratch', pipelineRunId, key, file), 'utf8').catch(() => '');
    await pollUntil(() => scratch(rootA, 'long', 'long.log'), (text) => text !== '', 60_000);

    // Worker B joins while A executes both; then A dies without a word.
    await startWorker(rootB, modelB.providerEnv);
    await pollUntil(processRows, (rows) => rows.length === 2, 30_000);
    const exited = new Promise((resolve) => workerA.once('exit', resolve));
    workerA.kill('SIGKILL');
    await exited;

    // The death, as recorded by the survivor's sweep: no sooner than the lease after A's last beat
    // (no false death), and within the lease plus the sweep's period (plus one more period and a
    // second of slack for a loaded test machine).
    const deadA = await pollUntil(
      async () => (await processRows()).find((row) => row.process_id === processA!.process_id),
      (row) => row?.noticed_dead_at != null,
      60_000,
    );
    const detectionMs = deadA!.noticed_dead_at!.getTime() - deadA!.heartbeat_at.getTime();
    expect(detectionMs).toBeGreaterThanOrEqual(DEFAULT_SHARED_LEASE_MS);
    expect(detectionMs).toBeLessThanOrEqual(DEFAULT_SHARED_LEASE_MS + 2 * heartbeatPeriodMs(DEFAULT_SHARED_LEASE_MS) + 1_000);

    // The pipeline completes; the side-effecting steps ran once in all, the idempotent one again on B.
    const finished = await pollUntil(
      () => api('GET', `/api/workspaces/${ws}/pipeline-runs/${pipelineRunId}`).then((response) => response.body),
      (run) => run.status !== 'running',
      90_000,
    );
    expect(finished.status).toBe('completed');
    const nodes = Object.fromEntries((finished.nodes as Array<{ key: string; state: string; attempts: number }>).map((node) => [node.key, node]));
    expect(nodes.first).toMatchObject({ state: 'done', attempts: 1 });
    expect(nodes.long).toMatchObject({ state: 'done', attempts: 2 });
    expect(nodes.last).toMatchObject({ state: 'done', attempts: 1 });
    expect((await scratch(rootA, 'first', 'first.log')) + (await scratch(rootB, 'first', 'first.log'))).toBe('ran\n');
    expect(await scratch(rootA, 'long', 'long.log')).toBe('started\n');
    expect(await scratch(rootB, 'long', 'long.log')).toBe('started\nfinished\n');
    expect((await scratch(rootA, 'last', 'last.log')) + (await scratch(rootB, 'last', 'last.log'))).toBe('ran\n');

    // A's run is dead, and says why; the conversation's next turn runs on B.
    const run = await pollUntil(
      async () => (await api('GET', `/api/workspaces/${ws}/runs/${runId}`)).body.run as { state: string; liveness: string; error: string | null },
      (current) => current.state !== 'running',
      60_000,
    );
    expect(run).toMatchObject({ state: 'failed', liveness: 'dead', error: 'the process executing this run stopped while it was in progress' });
    const next = await api('POST', `/api/workspaces/${ws}/conversations/${conversationId}/messages`, { text: 'after the kill' });
    expect(next.status).toBe(202);
    await pollUntil(async () => (await api('GET', `/api/workspaces/${ws}/runs/${next.body.run.id}`)).body.run.state as string, (state) => state === 'completed', 60_000);
    expect(modelB.requests.filter((request) => JSON.stringify(request).includes('after the kill'))).not.toHaveLength(0);
    expect(modelA.requests.filter((request) => JSON.stringify(request).includes('after the kill'))).toHaveLength(0);
    expect(apiModel.requests).toHaveLength(0);
  }, 240_000);
});
