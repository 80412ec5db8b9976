/** Who is told when a run-log row cannot be written, with what the write was. */
export type RunLogWriteFailure = (error: unknown, what: string) => void;

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
  flush(): void | Promise<void>;
}
