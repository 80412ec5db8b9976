import { createHash } from 'node:crypto';
import { DefaultQueryCompiler, sql, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { parseQueuedRun } from '../../src/services/runs/run-queue.js';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { unescapeNulDeep } from '../../src/store/nul-escape.js';
import { isWorkerClient, postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-model-server.js';
import { statementsWithValuesDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE, on PostgreSQL: an API process inserts a posted turn's job in the statement that writes
 * the turn's message and run, on the queue the enqueue would have picked (the shared one, or the
 * private queue of the live worker the conversation sticks to), so nothing is sent for it after the
 * answer: no affinity read, no job insert of its own, no dispatch row to delete. Where that private
 * queue does not exist yet, the dispatch row is written instead and the run is enqueued after, as
 * before. The job is the one the enqueue would store (id, data, retries, expiry, retention).
 * An API-role and a worker-role control center in this process on one PostgreSQL database.
 * Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  pair = await startDispatchPair({ workspaceName: 'Job with rows', worker: { jobLeaseMs: 3_000, queuePollMs: 200 }, markWorkerClients: true });
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

/** The id `PgBossJobQueue.enqueue` gives a job of pg-boss queue `name` with `dedupeKey`. */
function expectedJobId(name: string, dedupeKey: string): string {
  const hex = createHash('sha256').update(`${name}\u0000${dedupeKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The API process's statements while `work` runs, the test's own reads of the run left out. */
async function apiStatementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const sent = await statementsWithValuesDuring(work, (client) => !isWorkerClient(client));
  return sent.map((statement) => statement.text).filter((text) => text !== 'select * from "runs" where "id" = $1');
}

async function jobsOf(runId: string): Promise<Array<{ id: string; name: string }>> {
  const db = await pair.db();
  return (await sql<{ id: string; name: string }>`select id, name from cc_pgboss.job where data->'payload'->>'runId' = ${runId} order by created_on`.execute(db)).rows;
}

/** The tables of the inserts Kysely compiled while `work` ran (a `with` statement's clauses included). */
async function insertsCompiledDuring(work: () => Promise<unknown>): Promise<string[]> {
  const tables: string[] = [];
  const original = DefaultQueryCompiler.prototype.compileQuery;
  const compile = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery').mockImplementation(function (this: DefaultQueryCompiler, node: RootOperationNode, queryId) {
    const roots = [node, ...((node as { with?: { expressions: Array<{ expression: RootOperationNode }> } }).with?.expressions.map((clause) => clause.expression) ?? [])];
    for (const root of roots) if (root.kind === 'InsertQueryNode') tables.push((root as { into?: { table: { identifier: { name: string } } } }).into?.table.identifier.name ?? '?');
    return original.call(this, node, queryId);
  });
  try {
    await work();
  } finally {
    compile.mockRestore();
  }
  return tables;
}

describe.skipIf(!postgresEnabled)("a posted turn's job, on PostgreSQL", () => {
  it('is inserted by the turn\'s own write, on the shared queue, then on the private queue of the worker the conversation sticks to once that queue exists; nothing is sent for it after the answer', async () => {
    const { api, model, workspaceId, spaceId, worker } = pair;
    model.scriptFor('job with rows', reply().text('one'), reply().text('two'), reply().text('three'));
    model.scriptFor('warm-up', reply().text('warm'));
    const turnIn = async (conversationId: string, text: string) => {
      const runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
      await pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === 'completed', 30_000);
      return runId;
    };
    // The process's first turn also makes the shared queue and the affinity tables ready (once per process).
    await turnIn((await api.spaces.createConversation(workspaceId, spaceId, { title: 'Warm-up' })).id, 'warm-up');
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Job with rows' })).id;
    const turn = (text: string) => turnIn(conversationId, text);

    // The first turn: no affinity yet, the shared queue.
    let first = '';
    const sent = await apiStatementsDuring(async () => (first = await turn('job with rows, turn one')));
    const writes = sent.filter((text) => text.includes('insert into "runs"'));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^with "w0" as \(insert into "messages".*"w1" as \(insert into "runs".*insert into cc_pgboss\.job .*insert into "run_dispatches"/);
    expect(sent.filter((text) => text.includes('cc_conversation_affinity'))).toEqual(writes);
    expect(sent.filter((text) => /insert into cc_pgboss\.job/i.test(text))).toEqual(writes);
    expect(sent.filter((text) => text.startsWith('delete from "run_dispatches"'))).toEqual([]);
    // The turn's context read, its rows with the job, the events journal's append.
    expect(sent).toHaveLength(3);
    expect(await jobsOf(first)).toEqual([{ id: expectedJobId(`${workspaceId}__runs`, first), name: `${workspaceId}__runs` }]);
    const db = await pair.db();
    expect(await db.selectFrom('run_dispatches').select('run_id').execute()).toEqual([]);

    // The conversation now sticks to the worker, whose private queue does not exist yet: the row is
    // written, and the enqueue after the answer makes the queue.
    const second = await turn('job with rows, turn two');
    expect((await jobsOf(second)).map((job) => job.name)).toEqual([`${workspaceId}__runs-${worker.processId}`]);

    // From then on the private queue takes the job in the turn's write.
    let third = '';
    let compiled: string[] = [];
    const thirdSent = await apiStatementsDuring(async () => {
      // The statement with its job is compiled once per database, as the one without: later turns send it with their values.
      compiled = await insertsCompiledDuring(async () => (third = (await api.turns.post(workspaceId, conversationId, { text: 'job with rows, turn three' }, 'op_test')).run!.id));
      await pollUntil(async () => findRun(await pair.db(), third), (found) => found?.state === 'completed', 30_000);
    });
    expect(compiled.filter((table) => ['messages', 'runs'].includes(table))).toEqual([]);
    expect(thirdSent.filter((text) => /insert into cc_pgboss\.job/i.test(text))).toHaveLength(1);
    expect(thirdSent.filter((text) => text.startsWith('select a.process_id') || text.startsWith('delete from "run_dispatches"'))).toEqual([]);
    expect(thirdSent).toHaveLength(3);
    expect(await jobsOf(third)).toEqual([{ id: expectedJobId(`${workspaceId}__runs-${worker.processId}`, third), name: `${workspaceId}__runs-${worker.processId}` }]);
    expect(await db.selectFrom('run_dispatches').select('run_id').execute()).toEqual([]);
    const answers = (await api.messages.list(workspaceId, conversationId)).filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(answers).toEqual(['one', 'two', 'three']);
  }, 120_000);

  it('is stored as the enqueue stores a job: the same data (NUL and its escape marker kept), id rule, retries, expiry and retention', async () => {
    const { api, workspaceId, spaceId } = pair;
    // Nothing claims from here on: both jobs stay as they were inserted.
    pair.worker.runQueue!.stop();
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Stored as sent' })).id;
    const text = 'a NUL \u0000 and the marker \uFDD0 and both \uFDD00';
    const runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
    const db = await pair.db();
    expect(await db.selectFrom('run_dispatches').select('run_id').execute()).toEqual([]);
    const read = async (name: string) =>
      (
        await sql<Record<string, unknown>>`select id, state, data, priority, retry_limit, retry_delay, retry_backoff, policy, dead_letter, singleton_key, singleton_on,
            expire_in::text as expire_in, (keep_until - start_after)::text as kept_for, start_after <= now() as due
          from cc_pgboss.job where name = ${name} and data->'payload'->>'runId' = ${runId}`.execute(db)
      ).rows;
    const [turnJob] = await read(`${workspaceId}__runs`);
    expect(turnJob).toBeDefined();
    // The data as stored reads back (the workspace handle unescapes its string columns, not jsonb's strings) as the posted turn's run.
    const queued = parseQueuedRun(unescapeNulDeep((turnJob!.data as { payload: unknown }).payload));
    expect(queued).toMatchObject({ runId, conversationId, prompt: text });
    // The same payload through the enqueue, on a queue nobody claims.
    const connection = (api as unknown as { jobQueue: PgBossConnection }).jobQueue;
    await connection.queueFor(workspaceId).enqueue({ queue: 'compare', payload: queued, dedupeKey: runId });
    const [sentJob] = await read(`${workspaceId}__compare`);
    expect(sentJob!.id).toBe(expectedJobId(`${workspaceId}__compare`, runId));
    expect(turnJob!.id).toBe(expectedJobId(`${workspaceId}__runs`, runId));
    expect({ ...turnJob, id: null }).toEqual({ ...sentJob, id: null });
  }, 120_000);
});
