import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import { escapeNul } from './nul-escape.js';
import type { ModelCallCostRow, RunLogSink, RunLogWriteFailure } from './run-log-sink.js';
import { FLUSH_DELAY_MS } from './run-log-writer.js';
import type { WorkspaceSchema } from './workspace-schema.js';

type RunEventRow = Insertable<WorkspaceSchema['run_events']>;

/** What one queued write does to a tool call's row: its start, its policy decision or its end. */
interface ToolCallChange {
  id: string;
  started?: { run_id: string; name: string; input: string; started_at: string };
  decided?: { decision: string; decided_by: string; classes: string };
  ended?: { output: string | null; is_error: number; executed: number; ended_at: string };
}

/** One queued row change, with what it was for the failure report. */
interface PendingWrite {
  what: string;
  /** The write on its own: used when the batch's one statement fails, to find the rows that cannot be written. */
  apply: (db: Kysely<WorkspaceSchema>) => Promise<unknown>;
  onError: RunLogWriteFailure;
  /** A run-log line: written with the batch's other lines in one multi-row insert. */
  line?: RunEventRow;
  toolCall?: ToolCallChange;
  /** A model call's spend-ledger row: written with the batch's other cost rows in one multi-row insert. */
  cost?: ModelCallCostRow;
  /** Told when the write is committed (only a cost row's caller waits for it). */
  written?: () => void;
}

/**
 * The run-log writer on PostgreSQL (HAR-6): the same contract as the SQLite `RunLogWriter` — the
 * writes queued within {@link FLUSH_DELAY_MS} are written together (NF-SCALE: a run logs at several
 * moments of a tool turn, a few milliseconds apart, and a batch per event-loop turn cost ~3.5
 * statements per turn; a reader, or a run's end, flushes at once); a failed batch is retried
 * write by write so only the rows that really cannot be written are lost, each reported to its run.
 * Batches are written one after the other (a flush waits for the one before it), so order holds
 * across batches too. NF-SCALE: a batch is ONE statement whatever it holds (each statement is a
 * round trip that wakes the database and this process, and a transaction adds two more): its lines
 * are one insert, a tool call started in the batch is inserted with its decision and end already
 * applied, and the decisions and ends of calls started earlier are one update; the spend-ledger rows
 * of model calls ({@link PostgresRunLogWriter.modelCallCost}) are one more insert in it.
 */
export class PostgresRunLogWriter implements RunLogSink {
  private pending: PendingWrite[] = [];
  private scheduled: NodeJS.Timeout | null = null;
  private tail: Promise<void> = Promise.resolve();

  /** `flushDelayMs`: how long queued writes wait for more (tests lengthen it so a loaded machine cannot split their batch). */
  constructor(
    private readonly db: Kysely<WorkspaceSchema>,
    private readonly flushDelayMs = FLUSH_DELAY_MS,
  ) {}

  appendEvent(runId: string, sequence: number, type: string, data: string, at: string, onError: RunLogWriteFailure): void {
    const row = { run_id: runId, sequence, type, data, at };
    this.enqueue({ what: `event ${type}`, onError, apply: (db) => db.insertInto('run_events').values(row).execute(), line: row });
  }

  toolCallStarted(runId: string, callId: string, name: string, input: string, at: string, onError: RunLogWriteFailure): void {
    const id = `${runId}:${callId}`;
    this.enqueue({
      what: `tool call ${callId} started`,
      onError,
      apply: (db) => db.insertInto('tool_calls').values({ id, run_id: runId, name, input, executed: 0, started_at: at }).onConflict((conflict) => conflict.column('id').doNothing()).execute(),
      toolCall: { id, started: { run_id: runId, name, input, started_at: at } },
    });
  }

  toolCallDecided(runId: string, callId: string, decision: string, decidedBy: string, classes: string, onError: RunLogWriteFailure): void {
    const id = `${runId}:${callId}`;
    const decided = { decision, decided_by: decidedBy, classes };
    this.enqueue({
      what: `tool call ${callId} decided`,
      onError,
      apply: (db) => db.updateTable('tool_calls').set(decided).where('id', '=', id).execute(),
      toolCall: { id, decided },
    });
  }

  toolCallEnded(runId: string, callId: string, output: string | null, isError: boolean, executed: boolean, at: string, onError: RunLogWriteFailure): void {
    const id = `${runId}:${callId}`;
    const ended = { output, is_error: isError ? 1 : 0, executed: executed ? 1 : 0, ended_at: at };
    this.enqueue({
      what: `tool call ${callId} ended`,
      onError,
      apply: (db) => db.updateTable('tool_calls').set(ended).where('id', '=', id).execute(),
      toolCall: { id, ended },
    });
  }

  /**
   * NF-SCALE: the row waits for the run log's batch like any line (the model call's end queues
   * lines too) instead of costing a statement of its own; the caller awaits the batch that
   * carries it, so once this resolves the row is committed, as a plain insert's would be. If the
   * batch fails the row is retried on its own like every write, and its own failure rejects.
   */
  modelCallCost(row: ModelCallCostRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.enqueue({ what: `model call cost ${row.id}`, onError: (error) => reject(error), apply: (db) => db.insertInto('model_call_costs').values(row).execute(), cost: row, written: resolve });
    });
  }

  /** Writes everything queued so far; resolves once it (and every batch before it) is written or reported. */
  flush(): Promise<void> {
    if (this.scheduled) {
      clearTimeout(this.scheduled);
      this.scheduled = null;
    }
    const batch = this.pending;
    this.pending = [];
    this.tail = this.tail.then(() => this.write(batch));
    return this.tail;
  }

  private async write(batch: PendingWrite[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await batchStatement(batch).execute(this.db);
    } catch {
      // One bad write must not cost the others their rows: retry each on its own, report the failures.
      for (const write of batch) {
        try {
          await write.apply(this.db);
          write.written?.();
        } catch (error) {
          write.onError(error, write.what);
        }
      }
      return;
    }
    for (const write of batch) write.written?.();
  }

  private enqueue(write: PendingWrite): void {
    this.pending.push(write);
    if (this.scheduled) return;
    // flush() never rejects: a failed batch is retried write by write and each failure reported to its run.
    this.scheduled = setTimeout(() => {
      this.scheduled = null;
      void this.flush();
    }, this.flushDelayMs);
    // A queued write never keeps a process alive: closing the database flushes it.
    this.scheduled.unref();
  }
}

type Started = NonNullable<ToolCallChange['started']>;
type Decided = NonNullable<ToolCallChange['decided']>;
type Ended = NonNullable<ToolCallChange['ended']>;

/**
 * The batch as one statement, with the effect of its writes one after the other: a tool call's
 * decision or end queued after its start in the same batch is folded into the inserted row (a
 * second start of the same call changes nothing, as its `on conflict do nothing` did); the others
 * update rows written by earlier batches — one update row per call, its decision and end merged. A
 * decision or end queued before its call's start in the same batch finds no row (the parts of one
 * statement see the table as it was before it), as it did when each was a statement of its own.
 */
function batchStatement(batch: readonly PendingWrite[]): RawBuilder<unknown> {
  const lines: RunEventRow[] = [];
  const costs: ModelCallCostRow[] = [];
  const inserted = new Map<string, Started & Partial<Decided> & Partial<Ended> & { id: string }>();
  const updated = new Map<string, Partial<Decided> & Partial<Ended> & { id: string }>();
  for (const { line, toolCall, cost } of batch) {
    if (line) lines.push(line);
    if (cost) costs.push(cost);
    if (!toolCall) continue;
    const { id, started, decided, ended } = toolCall;
    if (started) {
      if (!inserted.has(id)) inserted.set(id, { id, ...started });
      continue;
    }
    const row = inserted.get(id) ?? updated.get(id) ?? updated.set(id, { id }).get(id)!;
    Object.assign(row, decided ?? ended);
  }
  const parts: RawBuilder<unknown>[] = [];
  if (lines.length > 0) parts.push(sql`insert into run_events (run_id, sequence, type, data, at) select * from json_to_recordset(${recordsJson(lines)}::json) as l(run_id text, sequence bigint, type text, data text, at text)`);
  if (inserted.size > 0) {
    // `on conflict`: a call started again in a later batch keeps its first row (as `do nothing` did), but this batch's decision and end still apply.
    parts.push(sql`insert into tool_calls (id, run_id, name, input, started_at, decision, decided_by, classes, output, is_error, executed, ended_at)
      select id, run_id, name, input, started_at, decision, decided_by, classes, output, is_error, coalesce(executed, 0), ended_at
      from json_to_recordset(${recordsJson([...inserted.values()])}::json) as s(id text, run_id text, name text, input text, started_at text, decision text, decided_by text, classes text, output text, is_error int, executed int, ended_at text)
      on conflict (id) do update set ${sql.raw(changedColumns('excluded'))}`);
  }
  if (updated.size > 0) {
    parts.push(sql`update tool_calls set ${sql.raw(changedColumns('u'))}
      from json_to_recordset(${recordsJson([...updated.values()])}::json) as u(id text, decision text, decided_by text, classes text, output text, is_error int, executed int, ended_at text)
      where tool_calls.id = u.id`);
  }
  if (costs.length > 0) {
    parts.push(sql`insert into model_call_costs (id, run_id, agent_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, priced, created_at)
      select * from json_to_recordset(${recordsJson(costs)}::json) as c(id text, run_id text, agent_id text, provider text, model text, input_tokens bigint, output_tokens bigint, cache_read_tokens bigint, cache_write_tokens bigint, cost_usd double precision, priced bigint, created_at text)`);
  }
  if (parts.length === 1) return parts[0]!;
  // Parts of one statement do not see each other's rows: the update touches only calls started in earlier batches.
  return sql`with ${sql.join(parts.map((part, index) => sql`${sql.raw(`part_${index}`)} as (${part})`))} select 1`;
}

/**
 * Rows as the JSON parameter of `json_to_recordset`, their text escaped as the store's NUL escaping
 * would have escaped each value as a parameter of its own (nul-escape.ts) — the marker itself written
 * as a JSON escape, so that the escaping, which sees the JSON as one string, leaves it alone.
 */
function recordsJson(rows: readonly object[]): string {
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'string' ? escapeNul(value) : value)).replace(/\uFDD0/g, '\\ufdd0');
}

/**
 * The `set` list applying a decision and an end found in `source` (an update's source rows or a
 * conflicting insert's `excluded`) to `tool_calls`: a decision's columns are never null, an end
 * always has its `ended_at`, so a null there means "not in this batch" and the column is left as it was.
 */
function changedColumns(source: string): string {
  const decided = ['decision', 'decided_by', 'classes'].map((column) => `${column} = coalesce(${source}.${column}, tool_calls.${column})`);
  const ended = ['output', 'is_error', 'executed'].map((column) => `${column} = case when ${source}.ended_at is null then tool_calls.${column} else ${source}.${column} end`);
  return [...decided, ...ended, `ended_at = coalesce(${source}.ended_at, tool_calls.ended_at)`].join(', ');
}
