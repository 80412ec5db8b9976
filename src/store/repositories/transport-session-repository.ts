import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** Which runner session a conversation's agent resumes on a transport (Claude Code's `--resume`). */
export interface TransportSessionKey {
  conversationId: string;
  agentId: string;
  adapterId: string;
}

/** The stored runner session id, or null when this agent has not run on this transport here yet. */
export async function findTransportSessionId(db: Kysely<WorkspaceSchema>, key: TransportSessionKey): Promise<string | null> {
  const row = await db
    .selectFrom('transport_sessions')
    .select('session_id')
    .where('conversation_id', '=', key.conversationId)
    .where('agent_id', '=', key.agentId)
    .where('adapter_id', '=', key.adapterId)
    .executeTakeFirst();
  return row?.session_id ?? null;
}

/** Stores (or replaces) the runner session id for the key. */
export async function saveTransportSessionId(db: Kysely<WorkspaceSchema>, key: TransportSessionKey, sessionId: string, updatedAt: string): Promise<void> {
  await db
    .insertInto('transport_sessions')
    .values({ conversation_id: key.conversationId, agent_id: key.agentId, adapter_id: key.adapterId, session_id: sessionId, updated_at: updatedAt })
    .onConflict((conflict) => conflict.columns(['conversation_id', 'agent_id', 'adapter_id']).doUpdateSet({ session_id: sessionId, updated_at: updatedAt }))
    .execute();
}
