import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { startWorkerProcess } from '../support/serve-process.js';
import { isRunning, useApiProcessCluster } from '../support/api-process-cluster.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * SPEC §15 (NF-SCALE), PIPE-1: a worker leaves without losing work. One `serve --role api` and
 * workers as real child processes on one PostgreSQL database, each worker with its own scripted
 * model server and data root.
 * - SIGTERM drains: the worker claims nothing more at once, a node in flight finishes within the
 *   grace period, a node that cannot is handed back and finished by the other worker, a turn that
 *   cannot finish ends with a cause a person reads, and the process exits 0.
 * - kill -9: the jobs the dead worker held go back as soon as its death is noticed, not when the
 *   job queue's own lease on them would run out.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

const cluster = useApiProcessCluster(enabled);
const api = (method: string, path: string, body?: unknown) => cluster().apiProcess.api(method, path, body);

async function startWorker(root: string, model: ScriptedModelServer, args: string[] = []): Promise<ChildProcess> {
  const child = await startWorkerProcess(['--data-dir', root, ...args], { ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: cluster().database.url });
  cluster().children.push(child);
  return child;
}

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster().database.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const liveProcesses = () => query<{ process_id: string }>(`select process_id from cc_pgboss.cc_processes where heartbeat_at + stale_ms * interval '1 millisecond' > now()`);

async function newWorkspace(name: string): Promise<string> {
  const ws = (await api('POST', '/api/workspaces', { name })).body.id as string;
  await pollUntil(() => api('GET', `/api/workspaces/${ws}`), (response) => response.body.seeding === 'done', 60_000);
  return ws;
}

async function startPipeline(ws: string, nodes: unknown[]): Promise<string> {
  const created = await api('POST', `/api/workspaces/${ws}/pipelines`, { name: 'drain', nodes });
  expect(created.status).toBe(201);
  const started = await api('POST', `/api/workspaces/${ws}/pipelines/${created.body.pipeline.id}/runs`, {});
  expect(started.status).toBe(201);
  return started.body.id as string;
}

const finishedRun = (ws: string, runId: string, limitMs = 90_000) =>
  pollUntil(() => api('GET', `/api/workspaces/${ws}/pipeline-runs/${runId}`).then((response) => response.body), (run) => run.status !== 'running', limitMs);
const nodesOf = (run: { nodes: Array<{ key: string; state: string; attempts: number }> }) => Object.fromEntries(run.nodes.map((node) => [node.key, node]));

describe.skipIf(!enabled)('a worker leaving', () => {
  it('SIGTERM: claims nothing more, finishes what it can within the grace, hands back the rest, ends the turn it cannot finish with its cause, exits 0', async () => {
    const modelA = await startScriptedModelServer();
    const modelB = await startScriptedModelServer();
    cluster().models.push(modelA, modelB);
    const rootA = await makeDataRoot();
    const rootB = await makeDataRoot();
    cluster().roots.push(rootA, rootB);
    // Worker A alone: whatever is claimed now is A's.
    const workerA = await startWorker(rootA, modelA, ['--grace-seconds', '20']);
    const exitOfA = new Promise<number | null>((resolve) => workerA.once('exit', (code) => resolve(code)));
    const ws = await newWorkspace('Drain');

    const hanging = modelA.scriptFor('a turn that never ends', reply().text('working').hang());
    modelB.scriptFor('posted during the drain', reply().text('the other worker answers'));
    const spaceId = (await api('POST', `/api/workspaces/${ws}/spaces`, { name: 'Work' })).body.id as string;
    const conversation = async (title: string) => (await api('POST', `/api/workspaces/${ws}/spaces/${spaceId}/conversations`, { title })).body.id as string;
    const turn = await api('POST', `/api/workspaces/${ws}/conversations/${await conversation('Long')}/messages`, { text: 'a turn that never ends' });
    expect(turn.status).toBe(202);
    const runId = turn.body.run.id as string;
    await pollUntil(async () => hanging.requests.length, (count) => count > 0, 60_000);

    const pipelineRunId = await startPipeline(ws, [
      // Finishes when the test says so: it is in flight at the SIGTERM and finishes within the grace.
      { key: 'finishing', type: 'bashScript', script: 'echo started >> step.log; until [ -f release ]; do sleep 0.1; done; echo finished >> step.log' },
      // Never finishes on A (its scratch lies under A's data root): handed back after the grace.
      { key: 'handed', type: 'bashScript', idempotent: true, script: `echo started >> step.log; case "$PWD" in ${rootA}/*) sleep 600;; esac; echo finished >> step.log` },
      { key: 'last', type: 'bashScript', dependsOn: ['finishing', 'handed'], script: 'echo ran >> step.log' },
    ]);
    const scratchDir = (root: string, key: string) => join(root, 'workspaces', ws, 'pipeline-scratch', pipelineRunId, key);
    const stepLog = (root: string, key: string) => readFile(join(scratchDir(root, key), 'step.log'), 'utf8').catch(() => '');
    await pollUntil(async () => (await stepLog(rootA, 'finishing')) + (await stepLog(rootA, 'handed')), (text) => text === 'started\nstarted\n', 60_000);

    // Worker B joins; then A is asked to stop.
    await startWorker(rootB, modelB, ['--grace-seconds', '20']);
    await pollUntil(liveProcesses, (rows) => rows.length === 2, 30_000);
    workerA.kill('SIGTERM');
    // A turn posted during the drain is executed by B: A claims nothing more.
    const during = await api('POST', `/api/workspaces/${ws}/conversations/${await conversation('During')}/messages`, { text: 'posted during the drain' });
    expect(during.status).toBe(202);
    await writeFile(join(scratchDir(rootA, 'finishing'), 'release'), '');

    expect(await exitOfA).toBe(0);
    const finished = await finishedRun(ws, pipelineRunId);
    expect(finished.status).toBe('completed');
    const nodes = nodesOf(finished);
    // Finished on A within the grace, once; handed back and run through on B; the dependant only on B.
    expect(nodes.finishing).toMatchObject({ state: 'done', attempts: 1 });
    expect(await stepLog(rootA, 'finishing')).toBe('started\nfinished\n');
    expect(await stepLog(rootB, 'finishing')).toBe('');
    expect(nodes.handed).toMatchObject({ state: 'done', attempts: 2 });
    expect(await stepLog(rootA, 'handed')).toBe('started\n');
    expect(await stepLog(rootB, 'handed')).toBe('started\nfinished\n');
    expect(nodes.last).toMatchObject({ state: 'done', attempts: 1 });
    expect(await stepLog(rootA, 'last')).toBe('');
    expect(await stepLog(rootB, 'last')).toBe('ran\n');

    // The turn A could not finish says why; nothing is left running; the drain-time turn ran on B.
    const ended = (await api('GET', `/api/workspaces/${ws}/runs/${runId}`)).body.run;
    expect(ended).toMatchObject({ state: 'failed', error: 'The worker stopped (SIGTERM) before this turn finished' });
    await pollUntil(async () => (await api('GET', `/api/workspaces/${ws}/runs/${during.body.run.id}`)).body.run.state as string, (state) => state === 'completed', 60_000);
    expect(modelA.requests.filter((request) => JSON.stringify(request).includes('posted during the drain'))).toHaveLength(0);
    expect((await api('GET', `/api/workspaces/${ws}/runs?state=running`)).body.runs).toEqual([]);
  }, 240_000);

  it("kill -9: the jobs the dead worker held go back when its death is noticed, not when the queue's own lease on them runs out", async () => {
    // The first test's survivor leaves first (nothing in flight: it exits at once), so C alone claims.
    for (const child of cluster().children.slice(1)) if (isRunning(child)) child.kill('SIGTERM');
    await pollUntil(liveProcesses, (rows) => rows.length === 0, 60_000);
    const model = await startScriptedModelServer();
    cluster().models.push(model);
    const rootC = await makeDataRoot();
    const rootD = await makeDataRoot();
    cluster().roots.push(rootC, rootD);
    const workerC = await startWorker(rootC, model, ['--grace-seconds', '0']);
    const ws = await newWorkspace('Killed');
    const pipelineRunId = await startPipeline(ws, [
      { key: 'held', type: 'bashScript', idempotent: true, script: `echo started >> step.log; case "$PWD" in ${rootC}/*) sleep 600;; esac; echo finished >> step.log` },
    ]);
    const stepLog = (root: string) => readFile(join(root, 'workspaces', ws, 'pipeline-scratch', pipelineRunId, 'held', 'step.log'), 'utf8').catch(() => '');
    await pollUntil(() => stepLog(rootC), (text) => text === 'started\n', 60_000);
    await startWorker(rootD, model, ['--grace-seconds', '0']);
    await pollUntil(liveProcesses, (rows) => rows.length === 2, 30_000);
    const exited = new Promise((resolve) => workerC.once('exit', resolve));
    workerC.kill('SIGKILL');
    await exited;
    // The queue's own lease on the job C held now runs for an hour: only the death can give it back.
    const extended = await query(`update cc_pgboss.job set expire_in = interval '1 hour' where state = 'active' and name like $1 returning id`, [`${ws}__%`]);
    expect(extended).toHaveLength(1);

    const finished = await finishedRun(ws, pipelineRunId);
    expect(finished.status).toBe('completed');
    expect(nodesOf(finished).held).toMatchObject({ state: 'done', attempts: 2 });
    expect(await stepLog(rootD)).toBe('started\nfinished\n');
  }, 180_000);
});
