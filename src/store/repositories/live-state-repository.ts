import type { Kysely, Transaction } from 'kysely';
import type { Presence } from '../../schemas/presence.js';
import type { Question } from '../../schemas/question.js';
import type { WorkspaceEvent } from '../../schemas/events.js';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** Presence states that claim a run is doing something right now (AG-4). */
const BUSY: ReadonlySet<string> = new Set(['thinking', 'executing', 'blocked']);
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
/** The event types `projectLiveState` writes rows for; every other event leaves the tables alone. */
const PROJECTED: ReadonlySet<string> = new Set(['question.asked', 'question.answered', 'question.expired', 'question.cancelled', 'presence.updated', 'run.paused', 'run.resumed', 'run.updated']);

/** Whether the event changes a live-state row (most events, such as a run's log lines, do not). */
export function changesLiveState(event: WorkspaceEvent): boolean {
  return PROJECTED.has(event.type);
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
          await trx.deleteFrom('live_run_pauses').where('run_id', '=', event.data.id).execute();
          await trx.deleteFrom('live_questions').where('run_id', '=', event.data.id).execute();
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
