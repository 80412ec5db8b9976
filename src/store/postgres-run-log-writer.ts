import type { Insertable, Kysely } from 'kysely';
import type { RunLogSink, RunLogWriteFailure } from './run-log-sink.js';
import type { WorkspaceSchema } from './workspace-schema.js';

type RunEventRow = Insertable<WorkspaceSchema['run_events']>;

/** One queued row change, with what it was for the failure report. */
interface PendingWrite {
  what: string;
  apply: (db: Kysely<WorkspaceSchema>) => Promise<unknown>;
  onError: RunLogWriteFailure;
  /** A run-log line: written together with the lines queued next to it, in one statement. */
  eventRow?: RunEventRow;
}

/**
 * The run-log writer on PostgreSQL (HAR-6): the same contract as the SQLite `RunLogWriter` — the
 * writes of one event-loop turn go in one transaction on the next turn, in the order they were
 * queued; a failed batch is retried write by write so only the rows that really cannot be written
 * are lost, each reported to its run. Batches are written one after the other (a flush waits for the
 * one before it), so order holds across batches too.
 */
export class PostgresRunLogWriter implements RunLogSink {
  private pending: PendingWrite[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly db: Kysely<WorkspaceSchema>) {}

  appendEvent(runId: string, sequence: number, type: string, data: string, at: string, onError: RunLogWriteFailure): void {
    const row = { run_id: runId, sequence, type, data, at };
    this.enqueue(`event ${type}`, onError, (db) => db.insertInto('run_events').values(row).execute(), row);
  }

  toolCallStarted(runId: string, callId: string, name: string, input: string, at: string, onError: RunLogWriteFailure): void {
    this.enqueue(`tool call ${callId} started`, onError, (db) =>
      db
        .insertInto('tool_calls')
        .values({ id: `${runId}:${callId}`, run_id: runId, name, input, executed: 0, started_at: at })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute(),
    );
  }

  toolCallDecided(runId: string, callId: string, decision: string, decidedBy: string, classes: string, onError: RunLogWriteFailure): void {
    this.enqueue(`tool call ${callId} decided`, onError, (db) =>
      db.updateTable('tool_calls').set({ decision, decided_by: decidedBy, classes }).where('id', '=', `${runId}:${callId}`).execute(),
    );
  }

  toolCallEnded(runId: string, callId: string, output: string | null, isError: boolean, executed: boolean, at: string, onError: RunLogWriteFailure): void {
    this.enqueue(`tool call ${callId} ended`, onError, (db) =>
      db
        .updateTable('tool_calls')
        .set({ output, is_error: isError ? 1 : 0, executed: executed ? 1 : 0, ended_at: at })
        .where('id', '=', `${runId}:${callId}`)
        .execute(),
    );
  }

  /** Writes everything queued so far; resolves once it (and every batch before it) is written or reported. */
  flush(): Promise<void> {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    const batch = this.pending;
    this.pending = [];
    this.tail = this.tail.then(() => this.write(batch));
    return this.tail;
  }

  private async write(batch: PendingWrite[]): Promise<void> {
    if (batch.length === 0) return;
    const statements = statementsOf(batch);
    try {
      // Each statement is a round trip that wakes the database and this process: one alone needs no transaction around it.
      if (statements.length === 1) await statements[0]!(this.db);
      else {
        await this.db.transaction().execute(async (trx) => {
          for (const statement of statements) await statement(trx);
        });
      }
    } catch {
      // One bad write must not cost the others their rows: retry each on its own, report the failures.
      for (const write of batch) {
        try {
          await write.apply(this.db);
        } catch (error) {
          write.onError(error, write.what);
        }
      }
    }
  }

  private enqueue(what: string, onError: RunLogWriteFailure, apply: PendingWrite['apply'], eventRow?: RunEventRow): void {
    this.pending.push({ what, onError, apply, ...(eventRow ? { eventRow } : {}) });
    this.scheduled ??= setImmediate(() => {
      this.scheduled = null;
      void this.flush();
    });
  }
}

/** The batch as statements, in order: each run of consecutive run-log lines becomes one multi-row insert. */
function statementsOf(batch: readonly PendingWrite[]): Array<PendingWrite['apply']> {
  const statements: Array<PendingWrite['apply']> = [];
  let lines: RunEventRow[] | null = null;
  for (const write of batch) {
    if (!write.eventRow) {
      lines = null;
      statements.push(write.apply);
      continue;
    }
    if (!lines) {
      const rows: RunEventRow[] = [];
      lines = rows;
      statements.push((db) => db.insertInto('run_events').values(rows).execute());
    }
    lines.push(write.eventRow);
  }
  return statements;
}
