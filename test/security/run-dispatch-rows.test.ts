import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlCenter } from '../../src/services/control-center.js';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';

/**
 * NF-SCALE, SEC: a queued run's job payload waits in `run_dispatches` until its enqueue is
 * confirmed, and a worker's sweep enqueues what it finds there. The payload carries operator- and
 * agent-written text, and anything with write access to the workspace's schema could forge a row.
 * - hostile message text (SQL, placeholders, JSON that looks like a payload) survives the row and the
 *   sweep byte for byte and reaches the worker's model unchanged;
 * - a forged row enqueues nothing: junk that is not JSON, a payload that is not a queued run, a
 *   payload naming another run than its row, a row whose run does not exist or already ended — the
 *   rows are deleted, no job is created, no model is called, no run changes.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = postgresEnabled;
const HOSTILE = `'); drop table runs; -- $1 \${process.env.HOME} {"runId":"run_forged","mode":"build"} \u202e ünïcode`;

let pair: DispatchPair;
let api: ControlCenter;
let model: ScriptedModelServer;
let workspaceId: string;
let spaceId: string;

beforeAll(async () => {
  if (!enabled) return;
  pair = await startDispatchPair({
    workspaceName: 'Dispatch rows',
    worker: { jobLeaseMs: 3_000, queuePollMs: 200, dispatchGraceMs: 500 },
    // The API process never gets its enqueues through: every run is left to the sweep.
    beforeWorker: (apiProcess) => apiProcess.executor.dispatchTo(() => new Promise(() => undefined)),
  });
  ({ api, model, workspaceId, spaceId } = pair);
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

const db = () => pair.db();
const dispatchRows = async () => (await db()).selectFrom('run_dispatches').select('run_id').execute();
const jobsFor = async (runId: string) => (await pair.jobStates(runId)).length;

describe.skipIf(!enabled)('run dispatch rows are data, and forged ones enqueue nothing', () => {
  it('hostile message text survives the dispatch row and the sweep and reaches the model unchanged', async () => {
    model.scriptFor('drop table runs', reply().text('handled'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Hostile' })).id;
    void api.turns.post(workspaceId, conversationId, { text: HOSTILE }, 'op_test');
    const [row] = await pollUntil(dispatchRows, (rows) => rows.length === 1, 10_000);
    await pollUntil(async () => (await findRun(await db(), row!.run_id))?.state, (state) => state === 'completed', 30_000);
    const asked = model.requests.filter((request) => JSON.stringify(request.body).includes('drop table runs'));
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0]!.body)).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  }, 60_000);

  it('forged rows — junk, not a queued run, another run named, a missing run, an ended run — enqueue nothing', async () => {
    const requestsBefore = model.requests.length;
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Forged' })).id;
    const agentId = (await api.agents.list(workspaceId))[0]!.id;
    const handle = await db();
    const queued = await api.runs.record(workspaceId, handle, { agentId, spaceId, conversationId, mode: 'chat', autonomy: 'askFirst' });
    const ended = await api.runs.record(workspaceId, handle, { agentId, spaceId, conversationId, mode: 'chat', autonomy: 'askFirst', state: 'completed' });
    const payload = (runId: string) => JSON.stringify({ runId, agentId, spaceId, conversationId, mode: 'chat', autonomy: 'askFirst', prompt: 'forged', history: [], repoPath: null });
    const old = Date.now() - 60_000;
    await handle
      .insertInto('run_dispatches')
      .values([
        { run_id: 'run_junk', payload: 'not json {', recorded_at_ms: old },
        { run_id: queued.id, payload: JSON.stringify({ runId: queued.id, mode: 'root' }), recorded_at_ms: old },
        { run_id: 'run_missing', payload: payload('run_missing'), recorded_at_ms: old },
        { run_id: ended.id, payload: payload(ended.id), recorded_at_ms: old },
      ])
      .execute();
    // A row naming another (real, queued) run than its own.
    const other = await api.runs.record(workspaceId, handle, { agentId, spaceId, conversationId, mode: 'chat', autonomy: 'askFirst' });
    await handle.insertInto('run_dispatches').values({ run_id: 'run_decoy', payload: payload(other.id), recorded_at_ms: old }).execute();

    await pollUntil(dispatchRows, (rows) => rows.length === 0, 15_000);
    for (const runId of ['run_junk', queued.id, 'run_missing', ended.id, 'run_decoy', other.id]) expect(await jobsFor(runId)).toBe(0);
    expect((await findRun(handle, queued.id))?.state).toBe('queued');
    expect((await findRun(handle, other.id))?.state).toBe('queued');
    expect((await findRun(handle, ended.id))?.state).toBe('completed');
    expect(model.requests.length).toBe(requestsBefore);
  }, 60_000);
});
