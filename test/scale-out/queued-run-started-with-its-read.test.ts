import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { isWorkerClient, postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-model-server.js';
import { statementsWithValuesDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE: a worker that started a queued run before marks the next one `running` in the statement
 * that reads it, when the configuration it worked that start out under still holds (one round trip
 * instead of two); when the configuration changed meanwhile, the run starts by a write of its own,
 * under the new configuration, as before. An API-role and a worker-role control center in this
 * process on one PostgreSQL database; the worker's pools make clients of a subclass, so its
 * statements are told from the API's. Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  pair = await startDispatchPair({ workspaceName: 'Started with its read', worker: { jobLeaseMs: 3_000, queuePollMs: 200 }, markWorkerClients: true });
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

/** Posts a turn, waits until its run is `state` and its job has ended; the worker's statements that name the run or its job, but its claim and the lease's renewals. */
async function turnSeenFromTheWorker(conversationId: string, text: string, state: string, posted?: (runId: string) => void) {
  const { api, workspaceId } = pair;
  let runId = '';
  const sent = await statementsWithValuesDuring(async () => {
    runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
    posted?.(runId);
    await pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === state, 30_000);
    await pollUntil(() => pair.jobStates(runId), (states) => states.length > 0 && states.every((s) => s === 'completed'), 30_000);
  }, isWorkerClient);
  const jobs = await sql<{ id: string }>`select id from cc_pgboss.job where data->'payload'->>'runId' = ${runId}`.execute(await pair.db());
  const jobId = jobs.rows[0]!.id;
  const forRun = sent.filter((s) => (s.values.includes(runId) || s.values.includes(jobId)) && !s.text.includes('insert into cc_pgboss.cc_job_holders') && !s.text.includes('set started_on = now()'));
  return { runId, forRun };
}

describe.skipIf(!postgresEnabled)("a queued run's start on a worker that started one before", () => {
  it('a first run: read, then started by a write of its own', async () => {
    const { api, model, workspaceId, spaceId } = pair;
    model.scriptFor('cold start', reply().text('cold answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Cold start' })).id;
    const { forRun } = await turnSeenFromTheWorker(conversationId, 'cold start, the prompt', 'completed');
    expect(forRun).toHaveLength(3);
    expect(forRun[0]!.text).toMatch(/^select "runs"\.\*, \(select "version" from "config_version"/);
    expect(forRun[1]!.text).toMatch(/^update "runs" set "state" = \$1, "started_at" = \$2, "model" = \$3/);
  }, 120_000);

  it("marks a run `running` in the statement that reads it when the worker's last start's configuration still holds: its read, its start with that read, and its end", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    model.scriptFor('warm start', reply().tool('todo', { todos: [{ content: 'a todo', status: 'pending' }] }), reply().text('warm answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Warm start' })).id;
    const announced: string[] = [];
    let seenRunId = '';
    const unsubscribe = api.events.subscribe(workspaceId, (event) => {
      if (event.type === 'run.updated' && event.data.id === seenRunId) announced.push(event.data.state);
    });
    try {
      const { runId, forRun } = await turnSeenFromTheWorker(conversationId, 'warm start, the prompt', 'completed', (id) => (seenRunId = id));
      expect(forRun).toHaveLength(2);
      expect(forRun[0]!.text).toMatch(/^with started as \( update runs set state = .running., started_at = \$2, model = \$3/);
      expect(forRun[0]!.text).toContain('from config_version');
      expect(forRun[1]!.text).toContain("state = 'completed'");
      expect(forRun.filter((s) => /^update "runs"/.test(s.text))).toEqual([]);
      const run = await findRun(await pair.db(), runId);
      expect(run?.startedAt).toBeTruthy();
      expect(run?.model).toBeTruthy();
      // The worker's events reach this process by the cross-process relay, after the rows are visible.
      await pollUntil(async () => announced, (states) => states.includes('completed'), 10_000);
      expect(announced).toContain('running');
    } finally {
      unsubscribe();
    }
  }, 120_000);

  it('starts a run by a write of its own, under the new configuration, when the configuration changed since the last start', async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const conversation = model.scriptFor('changed start', reply().text('changed answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Changed start' })).id;
    const agentId = (await api.agents.list(workspaceId))[0]!.id;
    await api.agents.update(workspaceId, agentId, { persona: 'Persona written before the changed start.' });
    const { forRun } = await turnSeenFromTheWorker(conversationId, 'changed start, the prompt', 'completed');
    expect(forRun).toHaveLength(3);
    expect(forRun[0]!.text).toMatch(/^with started as \( update runs set/);
    expect(forRun[1]!.text).toMatch(/^update "runs" set "state" = \$1, "started_at" = \$2, "model" = \$3/);
    expect(JSON.stringify(conversation.requests[0]!.body)).toContain('Persona written before the changed start.');
  }, 120_000);

  it('a run that cannot start under the configuration the last start was worked out under goes from queued to failed, never through running', async () => {
    const { api, workspaceId, spaceId } = pair;
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Cannot start' })).id;
    const agentId = (await api.agents.list(workspaceId))[0]!.id;
    await api.agents.update(workspaceId, agentId, { modelId: 'mystery-model-x' });
    // The first run after the change starts the worker's configuration from the new version.
    await turnSeenFromTheWorker(conversationId, 'cannot start, turn one', 'failed');

    const announced: string[] = [];
    let seenRunId = '';
    const unsubscribe = api.events.subscribe(workspaceId, (event) => {
      if (event.type === 'run.updated' && event.data.id === seenRunId) announced.push(event.data.state);
    });
    try {
      const { runId, forRun } = await turnSeenFromTheWorker(conversationId, 'cannot start, turn two', 'failed', (id) => (seenRunId = id));
      // Nothing was started with the read: the run's read, its failure, and its end's job completion.
      expect(forRun[0]!.text).toMatch(/^select "runs"\.\*, \(select "version" from "config_version"/);
      expect(forRun.filter((s) => s.text.includes('"started_at"'))).toEqual([]);
      const run = await findRun(await pair.db(), runId);
      expect(run?.startedAt).toBeNull();
      expect(run?.error).toContain('mystery-model-x');
      // The worker's events reach this process by the cross-process relay, after the rows are visible.
      await pollUntil(async () => announced, (states) => states.includes('failed'), 10_000);
      expect(announced).not.toContain('running');
    } finally {
      unsubscribe();
    }
  }, 120_000);
});
