import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** A message waiting for a turn to end (HAR-5), as it is posted again once that turn has ended. */
export interface HeldMessage {
  id: string;
  conversationId: string;
  awaitedRunId: string;
  text: string;
  agentId: string | null;
  operatorId: string;
  createdAt: string;
}

const GOING_STATES = ['queued', 'running'] as const;

export async function insertHeldMessage(db: Kysely<WorkspaceSchema>, message: HeldMessage): Promise<void> {
  await db
    .insertInto('held_messages')
    .values({
      id: message.id,
      conversation_id: message.conversationId,
      awaited_run_id: message.awaitedRunId,
      text: message.text,
      agent_id: message.agentId,
      operator_id: message.operatorId,
      created_at: message.createdAt,
      claimed_by: null,
      claimed_at: null,
    })
    .execute();
}

/**
 * Claims held messages for `holder` (a token unique to this claim), in one UPDATE so that of several
 * processes noticing the same end exactly one gets each row: those waiting for `awaitedRunId`, or (a
 * sweep) those whose awaited run is no longer going. A claim older than `reclaimClaimsBefore`, or made
 * by another holder than `reclaimClaimsNotByPrefix…` (one that is gone), is taken over: a crash
 * between claim and start must not lose the message. Returns what `holder` claimed, oldest first.
 */
export async function claimHeldMessages(
  db: Kysely<WorkspaceSchema>,
  holder: string,
  claimedAt: string,
  which: { awaitedRunId: string } | { endedRuns: true; reclaimClaimsBefore: string | null; reclaimClaimsNotByPrefix: string | null },
): Promise<HeldMessage[]> {
  let update = db.updateTable('held_messages').set({ claimed_by: holder, claimed_at: claimedAt });
  if ('awaitedRunId' in which) {
    update = update.where('awaited_run_id', '=', which.awaitedRunId).where('claimed_at', 'is', null);
  } else {
    update = update
      .where('awaited_run_id', 'not in', db.selectFrom('runs').select('id').where('state', 'in', [...GOING_STATES]))
      .where((eb) =>
        eb.or([
          eb('claimed_at', 'is', null),
          ...(which.reclaimClaimsBefore === null ? [] : [eb('claimed_at', '<', which.reclaimClaimsBefore)]),
          ...(which.reclaimClaimsNotByPrefix === null ? [] : [eb('claimed_by', 'not like', `${which.reclaimClaimsNotByPrefix}%`)]),
        ]),
      );
  }
  // The holder token is this claim's own: nothing updated, nothing to read (a heartbeat's sweep, nearly always).
  const { numUpdatedRows } = await update.executeTakeFirst();
  if (Number(numUpdatedRows) === 0) return [];
  const rows = await db.selectFrom('held_messages').selectAll().where('claimed_by', '=', holder).orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => ({
    id: row.id,
    conversationId: row.conversation_id,
    awaitedRunId: row.awaited_run_id,
    text: row.text,
    agentId: row.agent_id,
    operatorId: row.operator_id,
    createdAt: row.created_at,
  }));
}

/** Its turn started (or it can never start one): it waits no more. */
export async function deleteHeldMessage(db: Kysely<WorkspaceSchema>, id: string): Promise<void> {
  await db.deleteFrom('held_messages').where('id', '=', id).execute();
}
