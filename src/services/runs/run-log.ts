import type { Kysely } from 'kysely';
import { nowIso } from '../../ids.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { ToolCallRecord, RunEventRecord } from '../../schemas/run.js';

export type { ToolCallRecord, RunEventRecord };

/**
 * The durable part of a run log (HAR-6): the events worth keeping and every tool call with its input,
 * output and the policy decision that let it run (or stopped it). Text deltas are not stored one by
 * one: the finished assistant message is.
 */
export class RunLog {
  private sequence = 0;

  constructor(
    private readonly db: Kysely<WorkspaceSchema>,
    readonly runId: string,
  ) {}

  async event(type: string, data: unknown): Promise<void> {
    this.sequence += 1;
    await this.db
      .insertInto('run_events')
      .values({ run_id: this.runId, sequence: this.sequence, type, data: JSON.stringify(data), at: nowIso() })
      .execute();
  }

  async toolCallStarted(call: { id: string; name: string; input: unknown }): Promise<void> {
    await this.db
      .insertInto('tool_calls')
      .values({ id: `${this.runId}:${call.id}`, run_id: this.runId, name: call.name, input: JSON.stringify(call.input), executed: 0, started_at: nowIso(), output: null, is_error: null, decision: null, decided_by: null, classes: null, ended_at: null })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  async toolCallDecided(callId: string, decision: { decision: string; decidedBy: { scope: string; ruleId: string | null }; classes: readonly string[] }): Promise<void> {
    await this.db
      .updateTable('tool_calls')
      .set({ decision: decision.decision, decided_by: JSON.stringify(decision.decidedBy), classes: JSON.stringify(decision.classes) })
      .where('id', '=', `${this.runId}:${callId}`)
      .execute();
  }

  async toolCallEnded(callId: string, result: { content: string; isError: boolean }, executed: boolean): Promise<void> {
    await this.db
      .updateTable('tool_calls')
      .set({ output: result.content, is_error: result.isError ? 1 : 0, executed: executed ? 1 : 0, ended_at: nowIso() })
      .where('id', '=', `${this.runId}:${callId}`)
      .execute();
  }

  static async toolCalls(db: Kysely<WorkspaceSchema>, runId: string): Promise<ToolCallRecord[]> {
    const rows = await db.selectFrom('tool_calls').selectAll().where('run_id', '=', runId).orderBy('started_at').orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id.slice(runId.length + 1),
      name: row.name,
      input: JSON.parse(row.input) as unknown,
      output: row.output,
      isError: row.is_error === null ? null : row.is_error === 1,
      executed: row.executed === 1,
      decision: row.decision,
      decidedBy: row.decided_by ? (JSON.parse(row.decided_by) as ToolCallRecord['decidedBy']) : null,
      classes: row.classes ? (JSON.parse(row.classes) as string[]) : [],
      startedAt: row.started_at,
      endedAt: row.ended_at,
    }));
  }

  static async events(db: Kysely<WorkspaceSchema>, runId: string): Promise<RunEventRecord[]> {
    const rows = await db.selectFrom('run_events').selectAll().where('run_id', '=', runId).orderBy('sequence').execute();
    return rows.map((row) => ({ sequence: row.sequence, type: row.type, data: JSON.parse(row.data) as unknown, at: row.at }));
  }
}
