import { PostgresAdapter, type Kysely } from 'kysely';
import { queryPerShape } from '../reusable-query.js';
import type { Message } from '../../schemas/message.js';
import type { Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { toMessageRow } from './message-repository.js';
import { toRunRow } from './run-repository.js';

/** The statement per database handle, compiled once; later turns send it with their own values. */
const keptTurnRows = queryPerShape();

/**
 * On PostgreSQL, a posted turn accepted for the workers — its message (without files), its run and
 * its dispatch row — written by one statement (data-modifying `with` clauses: atomic as any
 * statement, foreign keys checked at its end), as `insertRunWithDispatch` writes them, but compiled
 * once per database: building and compiling the three inserts and joining them into one statement
 * was a tenth of the API process's CPU per POST in a burst (NF-SCALE, bursts). The parameters are
 * the rows' values in their columns' order, the order Kysely compiled them in; the compiled statement
 * is kept only when its parameters were exactly those values, so a later turn's values take their
 * places (a value Kysely would leave out, `undefined`, is another statement: built every time).
 * Returns false where it does not apply (SQLite keeps its in-process transaction): the caller writes
 * the rows as before.
 */
export async function insertTurnRows(db: Kysely<WorkspaceSchema>, message: Message, run: Run, payload: unknown, recordedAtMs: number): Promise<boolean> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return false;
  const messageRow = toMessageRow(message);
  const runRow = toRunRow(run);
  const dispatchRow = { run_id: run.id, payload: JSON.stringify(payload), recorded_at_ms: recordedAtMs };
  const values: unknown[] = [...Object.values(messageRow), ...Object.values(runRow), ...Object.values(dispatchRow)];
  await keptTurnRows(db, 'message, run and dispatch row', values, () =>
    db
      .with('w0', (creator) => creator.insertInto('messages').values(messageRow))
      .with('w1', (creator) => creator.insertInto('runs').values(runRow))
      .insertInto('run_dispatches')
      .values(dispatchRow),
  );
  return true;
}
