import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ControlCenter } from '../../src/services/control-center.js';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { pollUntil } from '../support/plan-server-fixtures.js';

/**
 * NF-SCALE, AG-5: an API process records a turn's run `queued`, then enqueues it — two
 * writes to two places. Here the API process is a real control center on PostgreSQL whose enqueue
 * never returns (it died in between, as far as the queue knows); a worker's sweep finds the run's
 * dispatch row after the grace period and enqueues it, and the worker executes it once. A run with
 * two jobs (a sweep racing a slow enqueue) is executed once.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = postgresEnabled;
let pair: DispatchPair;
let api: ControlCenter;
let model: ScriptedModelServer;
let workspaceId: string;
let spaceId: string;

beforeAll(async () => {
  if (!enabled) return;
  pair = await startDispatchPair({ workspaceName: 'Dispatch sweep', worker: { jobLeaseMs: 3_000, queuePollMs: 200, dispatchGraceMs: 1_500 } });
  ({ api, model, workspaceId, spaceId } = pair);
}, 120_000);

afterAll(async () => {
  await pair?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const db = () => pair.db();
const runState = async (runId: string) => (await findRun(await db(), runId))?.state ?? null;
const dispatchRows = async () => (await db()).selectFrom('run_dispatches').selectAll().execute();
const jobsOf = async (runId: string) => (await pair.jobStates(runId)).map((state) => ({ state }));
const requestsWith = (marker: string) => model.requests.filter((request) => JSON.stringify(request).includes(marker)).length;

async function newConversation(): Promise<string> {
  return (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Turn' })).id;
}

describe.skipIf(!enabled)('queued runs whose enqueue never happened', () => {
  it('a run recorded queued by an API process that never enqueued it is enqueued by the sweep and executed once by a worker', async () => {
    model.scriptFor('lost enqueue', reply().text('answered after the sweep'));
    // The API process "dies" between the insert and the enqueue: its enqueue never returns.
    api.executor.dispatchTo(() => new Promise(() => undefined));
    const conversationId = await newConversation();
    void api.turns.post(workspaceId, conversationId, { text: 'lost enqueue turn' }, 'op_test');
    const [dispatch] = await pollUntil(dispatchRows, (rows) => rows.length === 1, 10_000);
    const runId = dispatch!.run_id;
    expect(await runState(runId)).toBe('queued');
    expect(await jobsOf(runId)).toEqual([]);
    await pollUntil(() => runState(runId), (state) => state === 'completed', 30_000);
    expect(requestsWith('lost enqueue turn')).toBe(1);
    expect(await dispatchRows()).toEqual([]);
    // One job, finished once the run ended.
    await pollUntil(() => jobsOf(runId), (jobs) => jobs.length === 1 && jobs[0]!.state === 'completed', 10_000);
  }, 60_000);

  it('a run whose enqueue succeeded keeps no dispatch row and is never enqueued a second time', async () => {
    model.scriptFor('normal enqueue', reply().text('answered once'));
    api.executor.dispatchTo((id, run) => api.runQueue!.enqueue(id, run));
    // The worker's sweeps, each with when it began and what it enqueued.
    const sweeps: Array<{ startedAt: number; enqueued: number }> = [];
    const workerQueue = pair.worker.runQueue!;
    const redispatch = workerQueue.redispatch.bind(workerQueue);
    vi.spyOn(workerQueue, 'redispatch').mockImplementation(async (...args) => {
      const startedAt = Date.now();
      const enqueued = await redispatch(...args);
      sweeps.push({ startedAt, enqueued });
      return enqueued;
    });
    const conversationId = await newConversation();
    const postedAt = Date.now();
    const posted = await api.turns.post(workspaceId, conversationId, { text: 'normal enqueue turn' }, 'op_test');
    const runId = posted.run!.id;
    // The enqueue runs off the request (the turn is answered first): its row goes once the job is in.
    await pollUntil(dispatchRows, (rows) => rows.length === 0, 30_000);
    await pollUntil(() => runState(runId), (state) => state === 'completed', 30_000);
    // Two sweeps that began once the grace (1.5 s) had passed for this turn — either would have enqueued
    // it again had it kept a dispatch row — enqueued nothing: still one job, one model request. Waiting
    // for the sweeps themselves, not a fixed window a late sweep would outlast.
    const afterGrace = await pollUntil(async () => sweeps.filter((sweep) => sweep.startedAt >= postedAt + 1_500), (late) => late.length >= 2, 15_000);
    expect(afterGrace.map((sweep) => sweep.enqueued)).toEqual(afterGrace.map(() => 0));
    expect((await jobsOf(runId)).map((job) => job.state)).toEqual(['completed']);
    expect(requestsWith('normal enqueue turn')).toBe(1);
  }, 60_000);

  it('two jobs for one queued run (a sweep racing a slow enqueue) execute it once', async () => {
    model.scriptFor('two jobs', reply().text('answered by one claimer'));
    // Both jobs exist before the worker can claim either: the enqueue is held until both are in.
    let enqueueBoth!: () => void;
    const held = new Promise<void>((resolve) => (enqueueBoth = resolve));
    api.executor.dispatchTo(async (id, run) => {
      await held;
      await api.runQueue!.enqueue(id, run);
      await api.runQueue!.enqueue(id, run, `${run.runId}#1`);
    });
    const conversationId = await newConversation();
    const posting = api.turns.post(workspaceId, conversationId, { text: 'two jobs turn' }, 'op_test');
    const [dispatch] = await pollUntil(dispatchRows, (rows) => rows.length === 1, 10_000);
    enqueueBoth();
    await posting;
    const runId = dispatch!.run_id;
    await pollUntil(() => runState(runId), (state) => state === 'completed', 30_000);
    await pollUntil(() => jobsOf(runId), (jobs) => jobs.length === 2 && jobs.every((job) => job.state === 'completed'), 10_000);
    expect(requestsWith('two jobs turn')).toBe(1);
  }, 60_000);
});
