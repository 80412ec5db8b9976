import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresRunLogWriter } from '../../src/store/postgres-run-log-writer.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { freshTestDatabase } from '../support/test-database.js';

/**
 * HAR-6 on PostgreSQL, NF-SCALE: a tool turn logs a dozen lines and a tool call's start, decision
 * and end, and each statement is a round trip that wakes the database and the worker — so a batch
 * is one statement whatever it holds, with the same all-or-each failure rule as before.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dir: string;
let store: WorkspaceDatabase;

beforeAll(async () => {
  database = await freshTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'cc-pg-run-log-'));
  store = await WorkspaceDatabase.open('ws_run_log', dir, { dialect: 'postgres', url: database.url });
}, 60_000);

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

/** The writer on the workspace's store, and the kind of every statement it sends. */
function recordedWriter(flushDelayMs?: number): { writer: PostgresRunLogWriter; statements: string[] } {
  const statements: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      const table = 'into' in args.node && args.node.into ? ` ${JSON.stringify(args.node.into)}` : '';
      statements.push(`${args.node.kind}${table.includes('run_events') ? ' run_events' : table.includes('tool_calls') ? ' tool_calls' : ''}`);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { writer: new PostgresRunLogWriter(store.db.withPlugin(plugin), flushDelayMs), statements };
}

const stored = async (runId: string) =>
  (await store.db.selectFrom('run_events').select(['sequence', 'type']).where('run_id', '=', runId).orderBy('sequence').execute()).map((row) => `${row.sequence} ${row.type}`);

const calls = async (runId: string) =>
  (await store.db.selectFrom('tool_calls').select(['id', 'name', 'decision', 'output', 'executed', 'ended_at']).where('run_id', '=', runId).orderBy('id').execute()).map((row) => ({ ...row, executed: Number(row.executed) }));

describe('the PostgreSQL run-log writer', () => {
  it('writes a batch of lines and a tool-call row as one statement, the lines in order', async () => {
    const { writer, statements } = recordedWriter();
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    for (let sequence = 1; sequence <= 5; sequence += 1) writer.appendEvent('run_lines', sequence, `line_${sequence}`, '{}', 'now', onError);
    writer.toolCallStarted('run_lines', 'c1', 'bash', '{}', 'now', onError);
    for (let sequence = 6; sequence <= 8; sequence += 1) writer.appendEvent('run_lines', sequence, `line_${sequence}`, '{}', 'now', onError);
    await writer.flush();
    expect(await stored('run_lines')).toEqual(Array.from({ length: 8 }, (_, index) => `${index + 1} line_${index + 1}`));
    expect(statements).toHaveLength(1);
    expect(await calls('run_lines')).toEqual([{ id: 'run_lines:c1', name: 'bash', decision: null, output: null, executed: 0, ended_at: null }]);
    expect(failures).toEqual([]);
  });

  it("a call's start, decision and end in one batch are one row; a decision and an end in later batches update it, once each", async () => {
    const { writer, statements } = recordedWriter();
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    writer.toolCallStarted('run_calls', 'c1', 'bash', '{"command":"ls"}', 'then', onError);
    writer.toolCallDecided('run_calls', 'c1', 'allow', '{"scope":"default","ruleId":null}', '["read"]', onError);
    writer.toolCallEnded('run_calls', 'c1', 'a.txt', false, true, 'now', onError);
    writer.toolCallStarted('run_calls', 'c2', 'write', '{}', 'then', onError);
    await writer.flush();
    expect(statements).toHaveLength(1);
    // The next batch: c2's decision and end (one update row), a repeated start of c1 that changes nothing, lines beside them.
    writer.appendEvent('run_calls', 1, 'tool_call_end', '{}', 'now', onError);
    writer.toolCallDecided('run_calls', 'c2', 'deny', '{"scope":"workspace","ruleId":"rule_1"}', '["write"]', onError);
    writer.toolCallStarted('run_calls', 'c1', 'renamed', '{}', 'later', onError);
    writer.toolCallEnded('run_calls', 'c2', null, true, false, 'now', onError);
    // A decision queued before its call's start finds no row, as a statement of its own did.
    writer.toolCallDecided('run_calls', 'c3', 'ask', '{"scope":"default","ruleId":null}', '[]', onError);
    writer.toolCallStarted('run_calls', 'c3', 'fetch', '{}', 'now', onError);
    await writer.flush();
    expect(statements).toHaveLength(2);
    expect(await calls('run_calls')).toEqual([
      { id: 'run_calls:c1', name: 'bash', decision: 'allow', output: 'a.txt', executed: 1, ended_at: 'now' },
      { id: 'run_calls:c2', name: 'write', decision: 'deny', output: null, executed: 0, ended_at: 'now' },
      { id: 'run_calls:c3', name: 'fetch', decision: null, output: null, executed: 0, ended_at: null },
    ]);
    const decided = await store.db.selectFrom('tool_calls').select(['decided_by', 'classes', 'is_error', 'started_at']).where('id', '=', 'run_calls:c2').executeTakeFirstOrThrow();
    expect(decided).toEqual({ decided_by: '{"scope":"workspace","ruleId":"rule_1"}', classes: '["write"]', is_error: 1, started_at: 'then' });
    expect(failures).toEqual([]);
  });

  it('lines logged in separate event-loop turns of a tool turn are one statement, written without a flush', async () => {
    // A delay far longer than the turns between the writes, so that no load on the machine splits the batch.
    const { writer, statements } = recordedWriter(1_000);
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    // A tool turn logs at several moments a few milliseconds apart (model call, gate, command, answer).
    const moment = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
    writer.appendEvent('run_turn', 1, 'model_call', '{}', 'now', onError);
    await moment();
    writer.toolCallStarted('run_turn', 'c1', 'bash', '{}', 'now', onError);
    writer.toolCallDecided('run_turn', 'c1', 'allow', '{"scope":"default","ruleId":null}', '[]', onError);
    await moment();
    writer.toolCallEnded('run_turn', 'c1', 'ok', false, true, 'now', onError);
    writer.appendEvent('run_turn', 2, 'tool_call_end', '{}', 'now', onError);
    // Nobody flushes: the queued rows are written on their own, together.
    await expect.poll(() => stored('run_turn'), { timeout: 10_000 }).toEqual(['1 model_call', '2 tool_call_end']);
    expect(await calls('run_turn')).toEqual([{ id: 'run_turn:c1', name: 'bash', decision: 'allow', output: 'ok', executed: 1, ended_at: 'now' }]);
    expect(statements).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('text with NUL and the escape marker reads back exactly as written, in the one statement', async () => {
    const { writer, statements } = recordedWriter();
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    const text = 'a\u0000b \uFDD0 c\uFDD00';
    writer.appendEvent('run_nul', 1, 'tool_call_end', JSON.stringify({ text }), 'now', onError);
    writer.toolCallStarted('run_nul', 'c1', 'bash', text, 'now', onError);
    writer.toolCallEnded('run_nul', 'c1', text, false, true, 'now', onError);
    await writer.flush();
    const line = await store.db.selectFrom('run_events').select('data').where('run_id', '=', 'run_nul').executeTakeFirstOrThrow();
    expect(JSON.parse(line.data)).toEqual({ text });
    const call = await store.db.selectFrom('tool_calls').select(['input', 'output']).where('id', '=', 'run_nul:c1').executeTakeFirstOrThrow();
    expect(call).toEqual({ input: text, output: text });
    // Not stored by the write-by-write retry: the one statement took the escaped text.
    expect(statements).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('a line that cannot be written is reported alone; the lines beside it are stored', async () => {
    const { writer } = recordedWriter();
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    writer.appendEvent('run_clash', 1, 'first', '{}', 'now', onError);
    await writer.flush();
    // Sequence 1 again: its key is taken, so the batch's one insert fails and each line is written on its own.
    for (const [sequence, type] of [[2, 'second'], [1, 'clash'], [3, 'third']] as const) writer.appendEvent('run_clash', sequence, type, '{}', 'now', onError);
    await writer.flush();
    expect(await stored('run_clash')).toEqual(['1 first', '2 second', '3 third']);
    expect(failures).toEqual(['event clash']);
  });
});
