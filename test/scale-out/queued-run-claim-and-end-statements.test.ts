import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { isWorkerClient, postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-model-server.js';
import { statementsWithValuesDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE: what a worker sends to the job queue's tables for one queued run. Taking the run (its
 * owner row and its conversation's affinity) goes in the statement that claims and leases its job,
 * and releasing it goes in the job's completion: two statements for the run's claim and end, not five. The run is
 * executed once and no owner row outlives it. An API-role and a worker-role control center in this
 * process on one PostgreSQL database; the worker's pools make clients of a subclass, so its
 * statements are told from the API's. Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  // The worker's pools make WorkerClients: its statements are told from the API's.
  pair = await startDispatchPair({ workspaceName: 'Claim and end', worker: { jobLeaseMs: 3_000, queuePollMs: 200 }, markWorkerClients: true });
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

/** The statements the worker's clients send while `work` runs, with their parameters. */
function workerStatementsDuring(work: () => Promise<unknown>): Promise<Array<{ text: string; values: unknown[] }>> {
  return statementsWithValuesDuring(work, isWorkerClient);
}

async function ownerRows(runId: string): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from cc_pgboss.cc_run_owners where run_id = ${runId}`.execute(await pair.db());
  return result.rows[0]!.n;
}

describe.skipIf(!postgresEnabled)("a queued run's claim and end on a worker", () => {
  it("takes the run in the statement that claims and leases its job, and releases it in the job's completion; no owner row outlives the run", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    model.scriptFor('claim and end', reply().text('first answer'), reply().text('second answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Claim and end' })).id;
    const turn = async (text: string) => {
      const runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
      await pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === 'completed', 30_000);
      await pollUntil(() => pair.jobStates(runId), (states) => states.length > 0 && states.every((state) => state === 'completed'), 30_000);
      return runId;
    };
    await turn('claim and end, turn one');

    let runId = '';
    const sent = await workerStatementsDuring(async () => (runId = await turn('claim and end, turn two')));
    // The run's claim: the one statement that took a job from a runs queue of this workspace, leased
    // it, recorded its holder and took the job's run (read from the job's payload in that statement).
    // (A claim that finds its queue empty sends the same statement: the poll's next claim may show here too.)
    const claims = sent.filter((s) => s.text.includes('insert into cc_pgboss.cc_job_holders') && String(s.values[0]).startsWith(`${workspaceId}__runs`));
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      expect(claim.text).toContain('for update skip locked');
      expect(claim.text).toContain('insert into cc_pgboss.cc_run_owners');
      expect(claim.text).toContain('insert into cc_pgboss.cc_conversation_affinity');
    }
    // No fetch and no lease of their own.
    expect(sent.filter((s) => s.text.startsWith('WITH next as') || (s.text.includes('set expire_in') && !s.text.includes('for update skip locked')))).toEqual([]);
    const jobId = await pair.jobIdOf(runId);
    // Every other statement on the queue's tables about this run or its job, but the lease's renewals (their number follows the run's duration).
    const forRun = sent.filter((s) => s.text.includes('cc_pgboss.') && (s.values.includes(runId) || s.values.includes(jobId)) && !s.text.includes('set started_on = now()'));
    expect(forRun.map((s) => s.text.slice(0, 60))).toHaveLength(1);
    expect(forRun[0]!.text).toContain("state = 'completed'");
    expect(forRun[0]!.text).toContain('delete from cc_pgboss.cc_run_owners');

    // Executed once, answered once; the owner row went with the job's completion.
    expect(await ownerRows(runId)).toBe(0);
    expect(await pair.jobStates(runId)).toEqual(['completed']);
    const answers = (await api.messages.list(workspaceId, conversationId)).filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(answers).toEqual(['first answer', 'second answer']);
  }, 120_000);
});
