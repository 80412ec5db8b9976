import type { AutonomyLevel } from '../../core/modes.js';
import { AUTONOMY_LABELS } from '../../core/modes.js';
import { ValidationError } from '../../errors/index.js';
import type { Kysely } from 'kysely';
import { findAgent, findAgentByName, listAgents, type AgentRecord } from '../../store/repositories/agent-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { CapabilitiesLookup } from '../agents/transport-field-check.js';

/**
 * What a runner without any permission check does: every native tool call runs unasked. On such a
 * transport this is the only autonomy that describes what happens, so it is the only one accepted.
 */
const WHAT_AN_UNGATED_RUNNER_DOES: AutonomyLevel = 'actFreely';

/** The agent an unaddressed message in the space goes to, in the turn service's order: default, else ceo, else the first. */
async function answeringAgent(db: Kysely<WorkspaceSchema>, defaultAgentId: string | null): Promise<AgentRecord | null> {
  if (defaultAgentId) return findAgent(db, defaultAgentId);
  return (await findAgentByName(db, 'ceo')) ?? (await listAgents(db))[0] ?? null;
}

/**
 * TRUTH-1: a space's autonomy is applied by the transport of the agent that answers in the space, or refused.
 * A runner whose native tools run unasked (Grok CLI, Copilot's extension engine) cannot ask before an
 * action, so Ask and Act-with-approval would be promises it breaks: only Act freely is accepted
 * there (400 naming the field and the transport). Checked on the write of an autonomy only; a space
 * stored before keeps working.
 */
export async function refuseAutonomyTheTransportIgnores(
  db: Kysely<WorkspaceSchema>,
  capabilitiesFor: CapabilitiesLookup,
  input: { field: 'autonomy' | 'picker'; autonomy: AutonomyLevel; defaultAgentId: string | null },
): Promise<void> {
  if (input.autonomy === WHAT_AN_UNGATED_RUNNER_DOES) return;
  const agent = await answeringAgent(db, input.defaultAgentId);
  if (!agent) return;
  const capabilities = capabilitiesFor(agent);
  if (capabilities.honours.spaceSettings.autonomy !== undefined) return;
  throw new ValidationError(
    input.field,
    `${capabilities.label} (\`${capabilities.adapterId}\`), the transport of '${agent.name}' (the agent that answers in this space), does not honour the autonomy dial: its own tools run without asking, so only "${AUTONOMY_LABELS[WHAT_AN_UNGATED_RUNNER_DOES]}" describes what it does`,
  );
}
