import { CompiledQuery, PostgresAdapter, type Kysely } from 'kysely';
import { queryPerShape } from '../reusable-query.js';
import type { Message } from '../../schemas/message.js';
import type { Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../workspace-schema.js';
import { toMessageRow } from './message-repository.js';
import { toRunRow } from './run-repository.js';

/** The statement per database handle, compiled once; later turns send it with their own values. */
const keptTurnRows = queryPerShape();

/**
 * A queued run's job, inserted by the same statement as the turn's rows: data-modifying CTEs (their
 * parameters numbered from `first`; names other than `w0`, `w1`) and `inserted`, an SQL expression
 * over them that is true when the job was inserted.
 */
export interface JobWithRows {
  ctes(first: number): string;
  values: unknown[];
  inserted: string;
}

/** The statement with a job, per database handle: its SQL, kept when the rows' inserts compiled to exactly their values. */
const keptWithJob = new WeakMap<Kysely<WorkspaceSchema>, string>();

/**
 * On PostgreSQL, a posted turn accepted for the workers — its message (without files), its run and
 * its dispatch row — written by one statement (data-modifying `with` clauses: atomic as any
 * statement, foreign keys checked at its end), as `insertRunWithDispatch` writes them, but compiled
 * once per database: building and compiling the three inserts and joining them into one statement
 * was a tenth of the API process's CPU per POST in a burst (NF-SCALE, bursts). The parameters are
 * the rows' values in their columns' order, the order Kysely compiled them in; the compiled statement
 * is kept only when its parameters were exactly those values, so a later turn's values take their
 * places (a value Kysely would leave out, `undefined`, is another statement: built every time).
 *
 * With `job`, the run's job is inserted by the same statement, and the dispatch row only when the
 * job was not: a run is recorded with its job or with the row the sweep re-enqueues, never with
 * neither (NF-SCALE: the enqueue after the answer was three more statements).
 *
 * Returns null where it does not apply (SQLite keeps its in-process transaction): the caller writes
 * the rows as before; else whether the job was inserted (always false without `job`).
 */
export async function insertTurnRows(db: Kysely<WorkspaceSchema>, message: Message, run: Run, payload: unknown, recordedAtMs: number, job?: JobWithRows): Promise<{ jobInserted: boolean } | null> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return null;
  const messageRow = toMessageRow(message);
  const runRow = toRunRow(run);
  const dispatchRow = { run_id: run.id, payload: JSON.stringify(payload), recorded_at_ms: recordedAtMs };
  const rowValues: unknown[] = [...Object.values(messageRow), ...Object.values(runRow)];
  const dispatchValues = Object.values(dispatchRow);
  if (!job) {
    await keptTurnRows(db, 'message, run and dispatch row', [...rowValues, ...dispatchValues], () =>
      db
        .with('w0', (creator) => creator.insertInto('messages').values(messageRow))
        .with('w1', (creator) => creator.insertInto('runs').values(runRow))
        .insertInto('run_dispatches')
        .values(dispatchRow),
    );
    return { jobInserted: false };
  }
  let text = rowValues.includes(undefined) ? undefined : keptWithJob.get(db);
  if (!text) {
    const inserts = [db.insertInto('messages').values(messageRow).compile(), db.insertInto('runs').values(runRow).compile()];
    const parameters = inserts.flatMap((insert) => insert.parameters);
    let offset = 0;
    const clauses = inserts.map((insert, index) => {
      const first = offset;
      offset += insert.parameters.length;
      return `"w${index}" as (${insert.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + first}`)})`;
    });
    const [runId, payloadText, recordedAt] = [1, 2, 3].map((i) => `$${offset + i}`);
    const jobFirst = offset + 4;
    // The dispatch row's values are cast: a `select` list does not take its types from the insert's columns as `values` does.
    text = `with ${clauses.join(', ')}, ${job.ctes(jobFirst)} insert into "run_dispatches" ("run_id", "payload", "recorded_at_ms") select ${runId}::text, ${payloadText}::text, ${recordedAt}::bigint where not (${job.inserted}) returning "run_id"`;
    const exact = parameters.length === rowValues.length && parameters.every((value, index) => value === rowValues[index]);
    if (exact) keptWithJob.set(db, text);
    else return { jobInserted: await sendWithJob(db, text, [...parameters, ...dispatchValues, ...job.values]) };
  }
  return { jobInserted: await sendWithJob(db, text, [...rowValues, ...dispatchValues, ...job.values]) };
}

/** Sends the statement with a job: no dispatch row came back when the job was inserted. */
async function sendWithJob(db: Kysely<WorkspaceSchema>, text: string, parameters: unknown[]): Promise<boolean> {
  const result = await db.executeQuery(CompiledQuery.raw(text, parameters));
  return result.rows.length === 0;
}
