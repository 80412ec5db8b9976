import { isUnsetAgentField, refusedFieldProblem, TRANSPORT_AGENT_FIELDS, type TransportAgentField } from '../../adapters/agent-field-support.js';
import type { TransportCapabilities } from '../../adapters/transport-capabilities.js';
import { ValidationError } from '../../errors/index.js';
import type { AgentRecord } from '../../store/repositories/agent-repository.js';

/** Finds what an agent's transport declares, by the agent's adapter id (null: the built-in harness). */
export type CapabilitiesLookup = (agent: { adapterId: string | null }) => TransportCapabilities;

/**
 * TRUTH-1: refuses (400 naming the field and the transport) a value the agent's transport would
 * store and ignore. Only what this write sets is checked — `written` — so an agent stored before a
 * field was refused keeps working until someone writes that field; a write that changes the
 * transport checks every field the agent will carry on the new one.
 */
export function refuseFieldsTheTransportIgnores(capabilities: TransportCapabilities, record: AgentRecord, written: ReadonlySet<string>): void {
  const honoured = capabilities.honours.agentFields;
  for (const field of TRANSPORT_AGENT_FIELDS) {
    if (!written.has(field) || honoured[field] !== undefined) continue;
    if (!isUnsetAgentField(field, record[field])) {
      throw new ValidationError(field, refusedFieldProblem(field, capabilities.label, capabilities.adapterId));
    }
  }
}

/**
 * The transport-dependent fields a write sets: every one on create (`current` null) or on a change
 * of transport, else those in the body (an editor that resends the unchanged adapter id changes nothing).
 */
export function fieldsWritten(change: Partial<Record<string, unknown>>, current: { adapterId: string | null } | null): ReadonlySet<TransportAgentField> {
  if (current === null || (change.adapterId !== undefined && change.adapterId !== current.adapterId)) return new Set(TRANSPORT_AGENT_FIELDS);
  return new Set(TRANSPORT_AGENT_FIELDS.filter((field) => change[field] !== undefined));
}
