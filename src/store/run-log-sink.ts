import type { Insertable } from 'kysely';
import type { WorkspaceSchema } from './workspace-schema.js';

/** Who is told when a run-log row cannot be written, with what the write was. */
export type RunLogWriteFailure = (error: unknown, what: string) => void;

/** One model call's row of the spend ledger (BUD-1). */
export type ModelCallCostRow = Insertable<WorkspaceSchema['model_call_costs']>;

/**
 * The batched writer of run-log rows (HAR-6), one per workspace database, whatever the dialect: the
 * SQLite one writes with prepared statements synchronously (`RunLogWriter`), the PostgreSQL one in
 * one asynchronous statement per batch (`PostgresRunLogWriter`). Writes never throw to the caller;
 * a row that cannot be written reaches its `onError`. `flush()` writes what is queued; a reader
 * awaits it before reading, so a run log read right after an event holds it.
 */
export interface RunLogSink {
  appendEvent(runId: string, sequence: number, type: string, data: string, at: string, onError: RunLogWriteFailure): void;
  toolCallStarted(runId: string, callId: string, name: string, input: string, at: string, onError: RunLogWriteFailure): void;
  toolCallDecided(runId: string, callId: string, decision: string, decidedBy: string, classes: string, onError: RunLogWriteFailure): void;
  toolCallEnded(runId: string, callId: string, output: string | null, isError: boolean, executed: boolean, at: string, onError: RunLogWriteFailure): void;
  /**
   * A model call's spend-ledger row. Unlike the other writes its caller learns the outcome: the
   * promise resolves once the row is committed and rejects with the row's own failure. On
   * PostgreSQL it rides the run log's next batch (a model call's end has run-log lines queued
   * around it, so the row costs no statement of its own); on SQLite it is written at once.
   */
  modelCallCost(row: ModelCallCostRow): Promise<void>;
  flush(): void | Promise<void>;
}
