import type { AuditActor } from '../../schemas/audit.js';
import type { AgentRecord } from '../../store/repositories/agent-repository.js';
import type { AuditAct } from './audit-act.js';
import { fieldWords } from './field-words.js';

/** Fields the server keeps for itself: never "changed" by a person. */
const BOOKKEEPING = new Set(['id', 'workspaceId', 'createdAt', 'updatedAt']);


/**
 * The fields an agent write set (create: those given) or changed (update: those whose value differs).
 * Names only: a persona, a system prompt or an ACP command's environment may hold what nobody
 * reading the audit log should see, so values never go into the entry (TEAM-3).
 */
function fieldsOf(before: AgentRecord | null, after: AgentRecord, given: readonly string[]): string[] {
  if (before === null) return given.filter((field) => !BOOKKEEPING.has(field));
  return (Object.keys(after) as Array<keyof AgentRecord>).filter((field) => !BOOKKEEPING.has(field) && JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

/** The audit act of creating an agent; `given` are the fields the request set. */
export function agentCreatedAct(actor: AuditActor, after: AgentRecord, given: readonly string[]): AuditAct {
  const fields = fieldsOf(null, after, given);
  return {
    kind: 'agent.created',
    actor,
    workspaceId: after.workspaceId,
    subject: { type: 'agent', id: after.id },
    summary: `Created agent ${after.name}${fields.length > 0 ? ` with ${fields.map(fieldWords).join(', ')}` : ''}`.slice(0, 300),
    details: { name: after.name, fields },
  };
}

/** The audit act of changing an agent: which fields changed, and the old name when it was renamed. */
export function agentUpdatedAct(actor: AuditActor, before: AgentRecord, after: AgentRecord): AuditAct {
  const changed = fieldsOf(before, after, []);
  return {
    kind: 'agent.updated',
    actor,
    workspaceId: after.workspaceId,
    subject: { type: 'agent', id: after.id },
    summary: (changed.length > 0 ? `Changed agent ${after.name}: ${changed.map(fieldWords).join(', ')}` : `Saved agent ${after.name} unchanged`).slice(0, 300),
    details: { name: after.name, changed, ...(before.name !== after.name ? { previousName: before.name } : {}) },
  };
}

/** The audit act of deleting an agent, naming it (its row is gone afterwards). */
export function agentDeletedAct(actor: AuditActor, before: AgentRecord): AuditAct {
  return { kind: 'agent.deleted', actor, workspaceId: before.workspaceId, subject: { type: 'agent', id: before.id }, summary: `Deleted agent ${before.name}`, details: { name: before.name } };
}
