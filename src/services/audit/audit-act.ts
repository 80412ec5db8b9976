import { newId, nowIso } from '../../ids.js';
import type { AuditActor, AuditEntry } from '../../schemas/audit.js';

/** What a service knows about an act it is about to write: the entry without its id and time. */
export interface AuditAct {
  kind: string;
  actor: AuditActor;
  workspaceId: string | null;
  spaceId?: string | null;
  conversationId?: string | null;
  subject?: { type: string; id: string } | null;
  summary: string;
  details?: Record<string, unknown>;
}

/** The entry for an act, stamped now; written by the caller inside the act's own transaction. */
export function auditEntryOf(act: AuditAct): AuditEntry {
  return {
    id: newId('aud'),
    kind: act.kind,
    actor: act.actor,
    workspaceId: act.workspaceId,
    spaceId: act.spaceId ?? null,
    conversationId: act.conversationId ?? null,
    subject: act.subject ?? null,
    summary: act.summary,
    details: act.details ?? {},
    createdAt: nowIso(),
  };
}

/** Acts the server does on its own (a timer, a recovery): nobody to name. */
export const SYSTEM_ACTOR: AuditActor = { kind: 'system', id: null, name: 'system' };
