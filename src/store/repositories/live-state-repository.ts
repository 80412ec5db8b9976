import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Presence } from '../../schemas/presence.js';
import type { Question } from '../../schemas/question.js';
import type { WorkspaceEvent } from '../../schemas/events.js';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** Presence states that claim a run is doing something right now (AG-4). */
const BUSY: ReadonlySet<string> = new Set(['thinking', 'executing', 'blocked']);
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
/** The event types `projectLiveState` writes rows for; every other event leaves the tables alone. */
const PROJECTED: ReadonlySet<string> = new Set(['question.asked', 'question.answered', 'question.expired', 'question.cancelled', 'presence.updated', 'run.paused', 'run.resumed', 'run.updated']);

/** Whether the event changes a live-state row (most events, such as a run's log lines or a run starting, do not). */
export function changesLiveState(event: WorkspaceEvent): boolean {
  if (event.type === 'run.updated') return ENDED.has(event.data.state);
  return PROJECTED.has(event.type);
}

/**
 * What a batch of events leaves in the live-state tables, each row's last word only: a question
 * asked and answered in the same batch is neither inserted nor deleted, an agent's presence is
 * written once with its latest. Folded so the whole batch is written by one statement beside its
 * events (`liveStateWrites`), where the parts of a statement cannot see each other's rows.
 */
export interface LiveStateChanges {
  questionsAsked: Map<string, { id: string; run_id: string; data: string; created_at: string }>;
  questionsGone: Set<string>;
  /** Runs that ended: every card of theirs already stored goes. */
  endedRuns: Set<string>;
  presence: Map<string, { agent_id: string; run_id: string | null; data: string }>;
  pausesStarted: Map<string, { run_id: string; paused_at: string }>;
  pausesEnded: Set<string>;
}

/** The net live-state change of a batch, in event order; null when no event of it changes a row. */
export function netLiveStateChanges(events: readonly WorkspaceEvent[]): LiveStateChanges | null {
  const changes: LiveStateChanges = { questionsAsked: new Map(), questionsGone: new Set(), endedRuns: new Set(), presence: new Map(), pausesStarted: new Map(), pausesEnded: new Set() };
  let any = false;
  for (const event of events) {
    if (!changesLiveState(event)) continue;
    any = true;
    switch (event.type) {
      case 'question.asked':
        changes.questionsAsked.set(event.data.id, { id: event.data.id, run_id: event.data.runId, data: JSON.stringify(event.data), created_at: event.data.createdAt });
        changes.questionsGone.delete(event.data.id);
        break;
      case 'question.answered':
      case 'question.expired':
      case 'question.cancelled':
        changes.questionsAsked.delete(event.data.id);
        changes.questionsGone.add(event.data.id);
        break;
      case 'presence.updated':
        changes.presence.set(event.data.agentId, { agent_id: event.data.agentId, run_id: event.data.runId, data: JSON.stringify(event.data) });
        break;
      case 'run.paused':
        changes.pausesStarted.set(event.data.runId, { run_id: event.data.runId, paused_at: event.at });
        changes.pausesEnded.delete(event.data.runId);
        break;
      case 'run.resumed':
        changes.pausesStarted.delete(event.data.runId);
        changes.pausesEnded.add(event.data.runId);
        break;
      case 'run.updated':
        changes.pausesStarted.delete(event.data.id);
        changes.pausesEnded.add(event.data.id);
        for (const [id, question] of changes.questionsAsked) if (question.run_id === event.data.id) changes.questionsAsked.delete(id);
        changes.endedRuns.add(event.data.id);
        break;
      default:
        break;
    }
  }
  return any ? changes : null;
}

/**
 * The writes of `changes` as data-modifying parts of one statement (PostgreSQL `with` queries):
 * they all run, in the statement that appends the events, so the rows commit with their events
 * in one round trip. Rows travel as one JSON parameter per table.
 */
export function liveStateWrites(changes: LiveStateChanges): RawBuilder<unknown>[] {
  const writes: RawBuilder<unknown>[] = [];
  const questionsGone = [...changes.questionsGone];
  const endedRuns = [...changes.endedRuns];
  if (questionsGone.length > 0 || endedRuns.length > 0) {
    writes.push(sql`delete from live_questions where id = any(${questionsGone}::text[]) or run_id = any(${endedRuns}::text[])`);
  }
  if (changes.questionsAsked.size > 0) {
    writes.push(sql`insert into live_questions (id, run_id, data, created_at)
      select id, run_id, data, created_at from json_to_recordset(${JSON.stringify([...changes.questionsAsked.values()])}::json) as q (id text, run_id text, data text, created_at text)
      on conflict (id) do nothing`);
  }
  if (changes.presence.size > 0) {
    writes.push(sql`insert into live_agent_presence (agent_id, run_id, data)
      select agent_id, run_id, data from json_to_recordset(${JSON.stringify([...changes.presence.values()])}::json) as p (agent_id text, run_id text, data text)
      on conflict (agent_id) do update set run_id = excluded.run_id, data = excluded.data`);
  }
  if (changes.pausesEnded.size > 0) writes.push(sql`delete from live_run_pauses where run_id = any(${[...changes.pausesEnded]}::text[])`);
  if (changes.pausesStarted.size > 0) {
    writes.push(sql`insert into live_run_pauses (run_id, paused_at)
      select run_id, paused_at from json_to_recordset(${JSON.stringify([...changes.pausesStarted.values()])}::json) as r (run_id text, paused_at text)
      on conflict (run_id) do nothing`);
  }
  return writes;
}

/**
 * Applies committed events to the live-state tables, inside the transaction that commits them
 * (PostgreSQL: `appendWorkspaceEvents`). So a process that reads an event's row reads the state that
 * event announced, whichever process published it; a process that died leaves its rows, which the
 * readers below ignore once its runs are marked ended.
 */
export async function projectLiveState(trx: Transaction<WorkspaceSchema>, events: readonly WorkspaceEvent[]): Promise<void> {
  for (const event of events) {
    switch (event.type) {
      case 'question.asked':
        await trx
          .insertInto('live_questions')
          .values({ id: event.data.id, run_id: event.data.runId, data: JSON.stringify(event.data), created_at: event.data.createdAt })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .execute();
        break;
      case 'question.answered':
      case 'question.expired':
      case 'question.cancelled':
        await trx.deleteFrom('live_questions').where('id', '=', event.data.id).execute();
        break;
      case 'presence.updated':
        await trx
          .insertInto('live_agent_presence')
          .values({ agent_id: event.data.agentId, run_id: event.data.runId, data: JSON.stringify(event.data) })
          .onConflict((conflict) => conflict.column('agent_id').doUpdateSet({ run_id: event.data.runId, data: JSON.stringify(event.data) }))
          .execute();
        break;
      case 'run.paused':
        await trx
          .insertInto('live_run_pauses')
          .values({ run_id: event.data.runId, paused_at: event.at })
          .onConflict((conflict) => conflict.column('run_id').doNothing())
          .execute();
        break;
      case 'run.resumed':
        await trx.deleteFrom('live_run_pauses').where('run_id', '=', event.data.runId).execute();
        break;
      case 'run.updated':
        if (ENDED.has(event.data.state)) {
          // Both in one statement: a turn's end is on every run's path.
          await trx
            .with('pauses', (db) => db.deleteFrom('live_run_pauses').where('run_id', '=', event.data.id))
            .deleteFrom('live_questions')
            .where('run_id', '=', event.data.id)
            .execute();
        }
        break;
      default:
        break;
    }
  }
}

/** Pending question cards whose run is still running (a dead process's run is marked ended, and its cards go with it). */
export async function readLiveQuestions(db: Kysely<WorkspaceSchema>): Promise<Question[]> {
  const rows = await db
    .selectFrom('live_questions')
    .innerJoin('runs', 'runs.id', 'live_questions.run_id')
    .where('runs.state', '=', 'running')
    .select(['live_questions.data'])
    .orderBy('live_questions.created_at')
    .orderBy('live_questions.id')
    .execute();
  return rows.map((row) => JSON.parse(row.data) as Question);
}

/** Each agent's latest presence; a busy one whose run is no longer running (its process died) is left out, as after a restart. */
export async function readLiveAgentPresence(db: Kysely<WorkspaceSchema>): Promise<Presence[]> {
  const rows = await db
    .selectFrom('live_agent_presence')
    .leftJoin('runs', 'runs.id', 'live_agent_presence.run_id')
    .select(['live_agent_presence.data', 'runs.state'])
    .orderBy('live_agent_presence.agent_id')
    .execute();
  return rows.map((row) => ({ presence: JSON.parse(row.data) as Presence, runState: row.state })).filter(({ presence, runState }) => !BUSY.has(presence.status) || runState === 'running').map(({ presence }) => presence);
}

/** Whether the run's last pause has not been followed by a resume (or its end). */
export async function isRunPaused(db: Kysely<WorkspaceSchema>, runId: string): Promise<boolean> {
  return (await db.selectFrom('live_run_pauses').select('run_id').where('run_id', '=', runId).executeTakeFirst()) !== undefined;
}
