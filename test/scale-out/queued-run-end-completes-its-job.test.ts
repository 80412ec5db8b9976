import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { isWorkerClient, postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-model-server.js';
import { statementsWithValuesDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE: a worker ends a queued run and completes its job (with the run's owner row) in one
 * statement, not two: the run's end statement carries the job's completion. What a worker sends
 * for one run — answered or failed — is counted: every statement about the run or its job. The job
 * still ends completed, no owner row outlives the run, and the run is answered once. An API-role and
 * a worker-role control center in this process on one PostgreSQL database; the worker's pools make
 * clients of a subclass, so its statements are told from the API's. Runs under
 * CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  pair = await startDispatchPair({ workspaceName: 'End completes job', worker: { jobLeaseMs: 3_000, queuePollMs: 200 }, markWorkerClients: true });
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

async function ownerRows(runId: string): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from cc_pgboss.cc_run_owners where run_id = ${runId}`.execute(await pair.db());
  return result.rows[0]!.n;
}

/** Posts a turn, waits until its run is `state` and its job has ended; the worker's statements meanwhile, with the run's and the job's ids. */
async function turnSeenFromTheWorker(conversationId: string, text: string, state: string) {
  const { api, workspaceId } = pair;
  let runId = '';
  const sent = await statementsWithValuesDuring(async () => {
    runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
    await pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === state, 30_000);
    await pollUntil(() => pair.jobStates(runId), (states) => states.length > 0 && states.every((s) => s === 'completed'), 30_000);
  }, isWorkerClient);
  const jobs = await sql<{ id: string }>`select id from cc_pgboss.job where data->'payload'->>'runId' = ${runId}`.execute(await pair.db());
  expect(jobs.rows).toHaveLength(1);
  const jobId = jobs.rows[0]!.id;
  // Every statement that names the run or its job, but its claim and the lease's renewals (their number follows the run's duration).
  const forRun = sent.filter((s) => (s.values.includes(runId) || s.values.includes(jobId)) && !s.text.includes('insert into cc_pgboss.cc_job_holders') && !s.text.includes('set started_on = now()'));
  return { runId, jobId, sent, forRun };
}

describe.skipIf(!postgresEnabled)("a queued run's end on a worker", () => {
  it("completes the run's job and deletes its owner row in the statement that ends the run and stores its answer", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    model.scriptFor('end completes job', reply().tool('todo', { todos: [{ content: 'a todo', status: 'pending' }] }), reply().text('the answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'End completes job' })).id;
    const { runId, jobId, sent, forRun } = await turnSeenFromTheWorker(conversationId, 'end completes job, the prompt', 'completed');

    // The job's completion and the owner row's delete ride in the statement that ends the run with its answer.
    const completions = sent.filter((s) => s.text.includes("state = 'completed'") && s.values.includes(jobId));
    expect(completions).toHaveLength(1);
    expect(completions[0]!.text).toMatch(/^with w0 as \(insert into "messages"/);
    expect(completions[0]!.text).toContain('update "runs" set "state"');
    expect(completions[0]!.text).toContain('delete from cc_pgboss.cc_run_owners');
    expect(completions[0]!.values).toContain(runId);
    // What names the run or its job: the run's read, its start and its end — no completion of its own.
    expect(forRun).toHaveLength(3);
    expect(forRun.filter((s) => s.text.includes('cc_pgboss.'))).toEqual(completions);

    expect(await ownerRows(runId)).toBe(0);
    expect(await pair.jobStates(runId)).toEqual(['completed']);
    const answers = (await api.messages.list(workspaceId, conversationId)).filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(answers).toEqual(['the answer']);
  }, 120_000);

  it('carries the completion in the end of a run that failed without an answer; the job still ends completed and the owner row goes', async () => {
    const { api, model, workspaceId, spaceId } = pair;
    model.scriptFor('refused turn', reply().error(400, 'the request was refused'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Refused turn' })).id;
    const { runId, jobId, sent } = await turnSeenFromTheWorker(conversationId, 'refused turn, the prompt', 'failed');

    const completions = sent.filter((s) => s.text.includes("state = 'completed'") && s.values.includes(jobId));
    expect(completions).toHaveLength(1);
    expect(completions[0]!.text).toContain('update "runs" set "state"');
    expect(completions[0]!.text).toContain('delete from cc_pgboss.cc_run_owners');
    expect(completions[0]!.text).not.toContain('insert into "messages"');
    expect(await ownerRows(runId)).toBe(0);
    expect(await pair.jobStates(runId)).toEqual(['completed']);
    expect((await findRun(await pair.db(), runId))?.error).toContain('refused');
  }, 120_000);
});
