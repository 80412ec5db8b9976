import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { testDialect } from '../support/test-database.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE, bursts, on PostgreSQL: a turn accepted for the workers (an API process) writes its
 * message, its run and its dispatch row in ONE statement — they were a transaction of five round
 * trips (begin, three inserts, commit) on every POST, and on a loaded machine every round trip is a
 * wake-up of the database and of the API process. The rows still land together or not at all.
 * Counted on node-postgres's client; no timing is asserted. PostgreSQL only (SQLite keeps its
 * in-process transaction): runs under CC_TEST_DATABASE=postgres.
 */
const onPostgres = testDialect() === 'postgres';
let harness: HarnessFixture;
const handed: string[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  harness = await startHarnessFixture({ operatorConnected: false });
  // An API process's dispatch: the job queue itself is not what is counted here.
  harness.server.running.app.executor.dispatchTo(async (_workspaceId, run) => void handed.push(run.runId));
}, 120_000);
afterAll(async () => {
  await harness?.dispose();
});

describe.skipIf(!onPostgres)("a turn's rows, accepted for the workers, on PostgreSQL", () => {
  it('are written by one statement: the message and its file, the run and its dispatch row, no transaction around them', async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversationId = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'one statement' })).body.id as string;
    let answer!: { status: number; body: { run: { id: string; state: string }; message: { id: string } } };
    const sent = await statementsDuring(async () => (answer = await api('POST', `/conversations/${conversationId}/messages`, { text: 'one statement\u0000 with a NUL', attachments: [{ name: 'notes.txt', data: Buffer.from('kept with its message').toString('base64') }] })));
    expect(answer.status).toBe(202);
    expect(answer.body.run.state).toBe('queued');
    const writes = sent.filter((text) => /insert into "(messages|message_attachments|runs|run_dispatches)"/.test(text));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^with .*insert into "messages".*insert into "message_attachments".*insert into "runs".*insert into "run_dispatches"/);
    expect(sent.filter((text) => /^(begin|commit)$/i.test(text))).toEqual([]);
    // The rows are there, the message as posted (its NUL kept), the dispatch row naming the run.
    const { db } = (await server.running.app.workspaces.handle(workspaceId)).database;
    const runId = answer.body.run.id;
    expect((await db.selectFrom('runs').select(['conversation_id', 'state']).where('id', '=', runId).executeTakeFirst())).toMatchObject({ conversation_id: conversationId });
    const [stored] = (await api('GET', `/conversations/${conversationId}/messages`)).body.messages as Array<{ content: string; attachments?: Array<{ name: string }> }>;
    expect(stored?.content).toBe('one statement\u0000 with a NUL');
    expect(stored?.attachments?.map((attachment) => attachment.name)).toEqual(['notes.txt']);
    await expect.poll(() => handed, { timeout: 60_000 }).toContain(runId);
  }, 120_000);

  it('land together or not at all: a run the store refuses leaves no message and no dispatch row', async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversationId = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'refused' })).body.id as string;
    const { db } = (await server.running.app.workspaces.handle(workspaceId)).database;
    await sql`create function refuse_dispatched_runs() returns trigger language plpgsql as $$ begin if new.conversation_id = ${sql.lit(conversationId)} then raise exception 'runs refused'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_dispatched_runs before insert on runs for each row execute function refuse_dispatched_runs()`.execute(db);
    try {
      const answer = await api('POST', `/conversations/${conversationId}/messages`, { text: 'never recorded' });
      expect(answer.status).toBe(500);
      expect((await api('GET', `/conversations/${conversationId}/messages`)).body.messages).toEqual([]);
      expect(await db.selectFrom('run_dispatches').select('run_id').where('payload', 'like', `%${conversationId}%`).execute()).toEqual([]);
    } finally {
      await sql`drop trigger refuse_dispatched_runs on runs`.execute(db);
      await sql`drop function refuse_dispatched_runs()`.execute(db);
    }
  }, 120_000);
});
