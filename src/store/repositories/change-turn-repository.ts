import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** A top-level turn of a conversation with the checkpoint it took before its first change, if any. */
export interface TurnWithCheckpoint {
  runId: string;
  startedAt: string;
  checkpoint: string | null;
}

/**
 * CHG-1: the conversation's turns in the order they began — top-level runs only (a subagent's or a
 * delegate's changes are its parent turn's), without the turns a rewind archived (their messages
 * carry `rewound_by`), each with its turn checkpoint (CTX-3) when it took one.
 */
export async function listTurnsWithCheckpoints(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<TurnWithCheckpoint[]> {
  const rows = await db
    .selectFrom('runs')
    .leftJoin('turn_checkpoints', 'turn_checkpoints.run_id', 'runs.id')
    .select(['runs.id as runId', 'runs.created_at as startedAt', 'turn_checkpoints.commit_sha as checkpoint'])
    .where('runs.conversation_id', '=', conversationId)
    .where('runs.parent_run_id', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('messages').select('messages.id').whereRef('messages.run_id', '=', 'runs.id').where('messages.rewound_by', 'is not', null))),
    )
    .orderBy('runs.created_at')
    .orderBy('runs.id')
    .execute();
  return rows.map((row) => ({ runId: row.runId, startedAt: row.startedAt, checkpoint: row.checkpoint ?? null }));
}
