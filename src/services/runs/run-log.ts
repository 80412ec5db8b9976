import type { Kysely } from 'kysely';
import { nowIso } from '../../ids.js';
import { listRunEvents, listToolCalls } from '../../store/repositories/run-log-repository.js';
import type { RunLogSink } from '../../store/run-log-sink.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { ToolCallRecord, RunEventRecord } from '../../schemas/run.js';

export type { ToolCallRecord, RunEventRecord };

/** Where a run log's lost writes are reported: the run that owns the log decides what it means for the run. */
export type RunLogFailureHandler = (error: unknown, what: string) => void;

/** The parts of a workspace database a run log uses: Kysely for reads, the batched writer for writes. */
export interface RunLogDatabase {
  db: Kysely<WorkspaceSchema>;
  runLog: RunLogSink;
}

/**
 * The durable part of a run log (HAR-6): the events worth keeping and every tool call with its input,
 * output and the policy decision that let it run (or stopped it). Text deltas are not stored one by
 * one: the finished assistant message is.
 *
 * Writes are queued on the database's run-log writer (a batch gathers up to 10 ms of writes: one
 * transaction on SQLite, one statement on PostgreSQL) and never
 * fail the caller: a write that cannot be stored goes to `onFailure`, so the run can say its log is
 * incomplete instead of looking healthy. `flush()` writes what is queued now.
 */
export class RunLog {
  private sequence = 0;

  constructor(
    private readonly database: RunLogDatabase,
    readonly runId: string,
    private readonly onFailure: RunLogFailureHandler,
  ) {}

  event(type: string, data: unknown): void {
    this.sequence += 1;
    this.database.runLog.appendEvent(this.runId, this.sequence, type, JSON.stringify(data), nowIso(), this.onFailure);
  }

  toolCallStarted(call: { id: string; name: string; input: unknown }): void {
    this.database.runLog.toolCallStarted(this.runId, call.id, call.name, JSON.stringify(call.input), nowIso(), this.onFailure);
  }

  toolCallDecided(callId: string, decision: { decision: string; decidedBy: { scope: string; ruleId: string | null }; classes: readonly string[] }): void {
    this.database.runLog.toolCallDecided(this.runId, callId, decision.decision, JSON.stringify(decision.decidedBy), JSON.stringify(decision.classes), this.onFailure);
  }

  toolCallEnded(callId: string, result: { content: string; isError: boolean }, executed: boolean): void {
    this.database.runLog.toolCallEnded(this.runId, callId, result.content, result.isError, executed, nowIso(), this.onFailure);
  }

  /** Writes every queued row of this database now; failures reach their runs' handlers before it returns. */
  async flush(): Promise<void> {
    await this.database.runLog.flush();
  }

  static async toolCalls(database: RunLogDatabase, runId: string): Promise<ToolCallRecord[]> {
    // Queued rows first: a reader right after an event must see it.
    await database.runLog.flush();
    return listToolCalls(database.db, runId);
  }

  static async events(database: RunLogDatabase, runId: string): Promise<RunEventRecord[]> {
    await database.runLog.flush();
    return listRunEvents(database.db, runId);
  }
}
