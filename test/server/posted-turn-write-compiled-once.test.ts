import { DefaultQueryCompiler, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { testDialect } from '../support/test-database.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE, bursts, on PostgreSQL: a turn accepted for the workers writes its message, its run and
 * its dispatch row in one statement, and that statement is compiled once per database — building and
 * compiling three inserts and joining them was a tenth of the API process's CPU per POST. Counted as
 * the queries Kysely compiles during a POST; no timing is asserted. PostgreSQL only: runs under
 * CC_TEST_DATABASE=postgres (SQLite keeps its in-process transaction).
 */
const onPostgres = testDialect() === 'postgres';
let harness: HarnessFixture;

beforeAll(async () => {
  if (!onPostgres) return;
  harness = await startHarnessFixture({ operatorConnected: false });
  // An API process's dispatch: runs are accepted `queued` and nothing executes them here.
  harness.server.running.app.executor.dispatchTo(async () => undefined);
}, 120_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await harness?.dispose();
});

/** The tables the inserts compiled while `work` ran write into (a `with` statement's clauses included). */
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

describe.skipIf(!onPostgres)("a posted turn's write, on PostgreSQL", () => {
  it('is one statement compiled once: later turns send it again with their own values, and their rows are stored as posted', async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversation = async () => (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'compiled once' })).body.id as string;
    const first = await conversation();
    expect((await api('POST', `/conversations/${first}/messages`, { text: 'compiles it' })).status).toBe(202);
    const second = await conversation();
    let answer!: { status: number; body: { run: { id: string; state: string }; message: { id: string } } };
    let sent: string[] = [];
    const compiled = await insertsCompiledDuring(async () => (sent = await statementsDuring(async () => (answer = await api('POST', `/conversations/${second}/messages`, { text: 'kept\u0000 with a NUL' })))));
    expect(answer.status).toBe(202);
    expect(compiled.filter((table) => ['messages', 'runs', 'run_dispatches'].includes(table))).toEqual([]);
    const writes = sent.filter((text) => /insert into "(messages|runs|run_dispatches)"/.test(text));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^with .*insert into "messages".*insert into "runs".*insert into "run_dispatches"/);
    // The second turn's own rows, not the first's values again.
    const { db } = (await server.running.app.workspaces.handle(workspaceId)).database;
    expect(await db.selectFrom('runs').select(['conversation_id', 'state']).where('id', '=', answer.body.run.id).executeTakeFirst()).toEqual({ conversation_id: second, state: 'queued' });
    const dispatch = await db.selectFrom('run_dispatches').select('payload').where('run_id', '=', answer.body.run.id).executeTakeFirst();
    expect(JSON.parse(dispatch!.payload)).toMatchObject({ runId: answer.body.run.id, conversationId: second });
    const [stored] = (await api('GET', `/conversations/${second}/messages`)).body.messages as Array<{ id: string; content: string; runId: string | null }>;
    expect(stored).toMatchObject({ id: answer.body.message.id, content: 'kept\u0000 with a NUL' });
    const [firstStored] = (await api('GET', `/conversations/${first}/messages`)).body.messages as Array<{ content: string }>;
    expect(firstStored?.content).toBe('compiles it');
  }, 120_000);
});
