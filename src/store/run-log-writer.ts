import type Database from 'better-sqlite3';
import type { ModelCallCostRow, RunLogSink } from './run-log-sink.js';

/** One row change of a run log, with the run it belongs to and who to tell when it cannot be written. */
interface PendingWrite {
  runId: string;
  /** What the write was, for the failure report ("event tool_call_end", "tool call c1 ended"). */
  what: string;
  apply: () => void;
  onError: (error: unknown, what: string) => void;
}

/** The hot run-log statements, prepared once per database handle (HAR-6). */
interface RunLogStatements {
  insertEvent: Database.Statement<[string, number, string, string, string]>;
  insertToolCall: Database.Statement<[string, string, string, string, string]>;
  decideToolCall: Database.Statement<[string, string, string, string]>;
  endToolCall: Database.Statement<[string | null, number, number, string, string]>;
  insertModelCallCost: Database.Statement<[string, string, string, string | null, string, number, number, number, number, number, number, string]>;
}

/**
 * How long queued run-log rows wait for more before they are written (on SQLite and on PostgreSQL).
 * A tool turn emits its events over a few milliseconds (model call, gate, command, answer); one
 * transaction (one statement on PostgreSQL) for all of them costs less than one per event-loop turn.
 * Readers in this process never wait for it: they flush first.
 */
export const FLUSH_DELAY_MS = 10;

/**
 * Writes run-log rows (events and tool calls) for one workspace database. Writes are queued and
 * flushed together in one transaction at most {@link FLUSH_DELAY_MS} later (a tool turn makes a
 * handful of them), with statements prepared once instead of built and prepared per call.
 * Order is kept: rows are applied in the order they were queued. Readers call `flush()` first, so
 * a run log read back right after an event always holds it.
 *
 * A write that fails is never dropped silently (HAR-6): when the batch's transaction fails, each of
 * its writes is retried on its own, so only the ones that really cannot be written are lost, and each
 * of those is reported to the run that queued it.
 */
export class RunLogWriter implements RunLogSink {
  private statements: RunLogStatements | null = null;
  private pending: PendingWrite[] = [];
  private scheduled: NodeJS.Timeout | null = null;

  constructor(private readonly raw: Database.Database) {}

  appendEvent(runId: string, sequence: number, type: string, data: string, at: string, onError: PendingWrite['onError']): void {
    this.enqueue(runId, `event ${type}`, onError, (statements) => statements.insertEvent.run(runId, sequence, type, data, at));
  }

  toolCallStarted(runId: string, callId: string, name: string, input: string, at: string, onError: PendingWrite['onError']): void {
    this.enqueue(runId, `tool call ${callId} started`, onError, (statements) => statements.insertToolCall.run(`${runId}:${callId}`, runId, name, input, at));
  }

  toolCallDecided(runId: string, callId: string, decision: string, decidedBy: string, classes: string, onError: PendingWrite['onError']): void {
    this.enqueue(runId, `tool call ${callId} decided`, onError, (statements) => statements.decideToolCall.run(decision, decidedBy, classes, `${runId}:${callId}`));
  }

  toolCallEnded(runId: string, callId: string, output: string | null, isError: boolean, executed: boolean, at: string, onError: PendingWrite['onError']): void {
    this.enqueue(runId, `tool call ${callId} ended`, onError, (statements) =>
      statements.endToolCall.run(output, isError ? 1 : 0, executed ? 1 : 0, at, `${runId}:${callId}`),
    );
  }

  /** Written at once, outside the batch: an embedded server has no round trip to save. */
  modelCallCost(row: ModelCallCostRow): Promise<void> {
    try {
      const { id, run_id, agent_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, priced, created_at } = row;
      this.prepared().insertModelCallCost.run(id, run_id, agent_id, provider ?? null, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, priced, created_at);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Writes everything queued so far, now (synchronously). Failures go to each write's `onError`. */
  flush(): void {
    if (this.scheduled) {
      clearTimeout(this.scheduled);
      this.scheduled = null;
    }
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    if (!this.raw.open) {
      for (const write of batch) write.onError(new Error('the workspace database is closed'), write.what);
      return;
    }
    try {
      this.raw.transaction(() => {
        for (const write of batch) write.apply();
      })();
    } catch {
      // One bad write must not cost the others their rows: retry each on its own, report the failures.
      for (const write of batch) {
        try {
          write.apply();
        } catch (error) {
          write.onError(error, write.what);
        }
      }
    }
  }

  private enqueue(runId: string, what: string, onError: PendingWrite['onError'], write: (statements: RunLogStatements) => unknown): void {
    this.pending.push({ runId, what, onError, apply: () => write(this.prepared()) });
    if (this.scheduled) return;
    this.scheduled = setTimeout(() => {
      this.scheduled = null;
      this.flush();
    }, FLUSH_DELAY_MS);
    // A queued write never keeps a process alive: closing the database flushes it.
    this.scheduled.unref();
  }

  private prepared(): RunLogStatements {
    this.statements ??= {
      insertEvent: this.raw.prepare('INSERT INTO run_events (run_id, sequence, type, data, at) VALUES (?, ?, ?, ?, ?)'),
      insertToolCall: this.raw.prepare(
        'INSERT INTO tool_calls (id, run_id, name, input, executed, started_at) VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (id) DO NOTHING',
      ),
      decideToolCall: this.raw.prepare('UPDATE tool_calls SET decision = ?, decided_by = ?, classes = ? WHERE id = ?'),
      endToolCall: this.raw.prepare('UPDATE tool_calls SET output = ?, is_error = ?, executed = ?, ended_at = ? WHERE id = ?'),
      insertModelCallCost: this.raw.prepare(
        'INSERT INTO model_call_costs (id, run_id, agent_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, priced, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
    };
    return this.statements;
  }
}
