import type { Kysely } from 'kysely';
import { nowIso } from '../../ids.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus } from '../event-bus.js';
import { OPERATOR_PRESENCE_TTL_MS, type OperatorHere } from './operator-presence.js';

/**
 * Operators' windows (AG-4) when several API processes serve one PostgreSQL database: a window's
 * "still here" may reach any of them, so each window is a row (`live_operator_windows`) with the
 * time a process last heard from it, and every process lists the same rows. The same rules as the
 * in-memory `OperatorPresence`: a window silent for longer than the TTL is gone, leaving removes it
 * at once, and `presence.operators` is published with the whole list whenever it changes.
 */
export class SharedOperatorPresence {
  constructor(
    private readonly dbOf: (workspaceId: string) => Promise<Kysely<WorkspaceSchema>>,
    private readonly events: EventBus,
    private readonly clock: () => number = Date.now,
  ) {}

  async here(workspaceId: string, operatorId: string, clientId: string, place: { spaceId: string | null; conversationId: string | null }): Promise<OperatorHere[]> {
    const db = await this.dbOf(workspaceId);
    const changed = await this.prune(db);
    const current = await db.selectFrom('live_operator_windows').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    const moved = !current || current.space_id !== place.spaceId || current.conversation_id !== place.conversationId || current.operator_id !== operatorId;
    const row = {
      operator_id: operatorId,
      space_id: place.spaceId,
      conversation_id: place.conversationId,
      since: moved ? nowIso() : current.since,
      last_seen_ms: this.clock(),
    };
    await db
      .insertInto('live_operator_windows')
      .values({ client_id: clientId, ...row })
      .onConflict((conflict) => conflict.column('client_id').doUpdateSet(row))
      .execute();
    const operators = await this.read(db);
    if (moved || changed) this.events.publish(workspaceId, 'presence.operators', { operators, updatedAt: nowIso() });
    return operators;
  }

  /** The window closed or left the workspace. Only its own operator can remove it. */
  async leave(workspaceId: string, operatorId: string, clientId: string): Promise<void> {
    const db = await this.dbOf(workspaceId);
    const removed = await db.deleteFrom('live_operator_windows').where('client_id', '=', clientId).where('operator_id', '=', operatorId).executeTakeFirst();
    if (Number(removed.numDeletedRows) > 0) this.events.publish(workspaceId, 'presence.operators', { operators: await this.read(db), updatedAt: nowIso() });
  }

  async list(workspaceId: string): Promise<OperatorHere[]> {
    const db = await this.dbOf(workspaceId);
    const changed = await this.prune(db);
    const operators = await this.read(db);
    if (changed) this.events.publish(workspaceId, 'presence.operators', { operators, updatedAt: nowIso() });
    return operators;
  }

  private async read(db: Kysely<WorkspaceSchema>): Promise<OperatorHere[]> {
    const rows = await db.selectFrom('live_operator_windows').selectAll().orderBy('since').orderBy('client_id').execute();
    return rows.map((row) => ({ clientId: row.client_id, operatorId: row.operator_id, spaceId: row.space_id, conversationId: row.conversation_id, since: row.since }));
  }

  /** Drops windows no process heard from within the TTL; true when any was dropped. */
  private async prune(db: Kysely<WorkspaceSchema>): Promise<boolean> {
    const removed = await db.deleteFrom('live_operator_windows').where('last_seen_ms', '<', this.clock() - OPERATOR_PRESENCE_TTL_MS).executeTakeFirst();
    return Number(removed.numDeletedRows) > 0;
  }
}
