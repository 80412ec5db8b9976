import type { Kysely } from 'kysely';
import { ceilingFromOrigin, type InheritedRules } from '../../core/policy/inherited-rules.js';
import { NotFoundError } from '../../errors/index.js';
import { findRun } from '../../store/repositories/run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { SpaceService } from '../spaces/space-service.js';

/**
 * SEC-9: the ceiling a run started by `runId` carries — that run's own rule scopes (its space, its
 * agent) plus the ceiling it carried itself. Read from the recorded row, so it is the same whoever
 * starts the work: the harness's `task`, `delegate_task`, relay_tool, an external runner over MCP.
 * `spaceName` only labels the entry for the cards; the rules are found by id.
 */
export async function ceilingOfWorkStartedBy(db: Kysely<WorkspaceSchema>, runId: string, spaceName?: (spaceId: string) => Promise<string | null>): Promise<InheritedRules> {
  const origin = await findRun(db, runId);
  // Fails closed: work whose origin cannot be read is not started at all.
  if (!origin) throw new NotFoundError('run', runId, 'runId');
  const name = origin.spaceId && spaceName ? await spaceName(origin.spaceId) : null;
  return ceilingFromOrigin({ runId: origin.id, spaceId: origin.spaceId, spaceName: name, agentId: origin.agentId, inherited: origin.inheritedRules });
}

/** The space-name lookup {@link ceilingOfWorkStartedBy} labels entries with, over the space service. */
export function spaceNameIn(spaces: Pick<SpaceService, 'findSpace'>, workspaceId: string): (spaceId: string) => Promise<string | null> {
  return async (spaceId) => (await spaces.findSpace(workspaceId, spaceId))?.name ?? null;
}
