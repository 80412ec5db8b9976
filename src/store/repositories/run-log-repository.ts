import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { DecidedBy } from '../../schemas/policy.js';
import type { RunEventRecord, ToolCallRecord } from '../../schemas/run.js';
import type { RunEventTable, ToolCallTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';

// Run-log rows are written by the batched writer (`store/run-log-writer.ts`); this file reads them.
const parseInput = jsonColumn('tool_calls', 'input', z.unknown());
const parseDecidedBy = jsonColumn('tool_calls', 'decided_by', DecidedBy);
const parseClasses = jsonColumn('tool_calls', 'classes', z.array(z.string()));
const parseEventData = jsonColumn('run_events', 'data', z.unknown());

/** The one mapper from a `tool_calls` row (HAR-6); its id is `<runId>:<callId>`, the record's is the call's own. */
export function toToolCallRecord(row: Selectable<ToolCallTable>): ToolCallRecord {
  return {
    id: row.id.slice(row.run_id.length + 1),
    name: row.name,
    input: parseInput(row.input, row.id),
    output: row.output,
    isError: row.is_error === null ? null : row.is_error === 1,
    executed: row.executed === 1,
    decision: row.decision,
    decidedBy: row.decided_by ? parseDecidedBy(row.decided_by, row.id) : null,
    classes: row.classes ? parseClasses(row.classes, row.id) : [],
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

/** The one mapper from a `run_events` row. */
export function toRunEventRecord(row: Selectable<RunEventTable>): RunEventRecord {
  return { sequence: row.sequence, type: row.type, data: parseEventData(row.data, `${row.run_id}#${row.sequence}`), at: row.at };
}

/** A run's tool calls in the order they started. */
export async function listToolCalls(db: Kysely<WorkspaceSchema>, runId: string): Promise<ToolCallRecord[]> {
  const rows = await db.selectFrom('tool_calls').selectAll().where('run_id', '=', runId).orderBy('started_at').orderBy('id').execute();
  return rows.map(toToolCallRecord);
}

/** A run's stored events in sequence order. */
export async function listRunEvents(db: Kysely<WorkspaceSchema>, runId: string): Promise<RunEventRecord[]> {
  const rows = await db.selectFrom('run_events').selectAll().where('run_id', '=', runId).orderBy('sequence').execute();
  return rows.map(toRunEventRecord);
}
