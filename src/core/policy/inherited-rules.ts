import { z } from 'zod';

/**
 * SEC-9: work an agent starts elsewhere — another conversation's turn (relay_tool), a subagent (task),
 * a delegate (delegate_task) — runs under rules no weaker than the agent's own. The started run
 * carries, as a ceiling, the rule scopes of the run that started it (its space and its agent) plus
 * every ceiling that run carried itself. Each call of the started run is decided under its own rules
 * AND under each inherited scope; the most restrictive answer wins: a deny anywhere is a deny, an ask
 * anywhere is at least an ask.
 *
 * What is inherited is the operator's rules. The originating run's mode and autonomy dial governed
 * the call that started the work (relay_tool asks first in ask and plan modes; proposeOnly denies it),
 * the started run keeps its own mode and dial.
 */
export const InheritedRuleScope = z.object({
  /** The run that started the work (the origin of this entry). */
  runId: z.string().min(1).max(80),
  /** The originating run's space, whose rules apply (null: a run outside any space). */
  spaceId: z.string().min(1).max(80).nullable(),
  /** The space's name when the work was started, for the approval card and the run card. */
  spaceName: z.string().max(200).nullable(),
  /** The originating run's agent, whose agent-scope rules apply. */
  agentId: z.string().min(1).max(80),
});
export type InheritedRuleScope = z.infer<typeof InheritedRuleScope>;

/** A started run's ceiling: every originating scope up its chain, oldest first. */
export const InheritedRules = z.array(InheritedRuleScope).max(256);
export type InheritedRules = z.infer<typeof InheritedRules>;

/**
 * The ceiling of work a run starts: the run's own ceiling plus the run itself. A scope already in the
 * ceiling (same space and agent) is not repeated: the rules it brings are the same ones, so a long
 * relay chain between two spaces stays two entries long.
 */
export function ceilingFromOrigin(origin: { runId: string; spaceId: string | null; spaceName: string | null; agentId: string; inherited: InheritedRules }): InheritedRules {
  const own: InheritedRuleScope = { runId: origin.runId, spaceId: origin.spaceId, spaceName: origin.spaceName, agentId: origin.agentId };
  const ceiling = [...origin.inherited];
  if (!ceiling.some((entry) => sameScope(entry, own))) ceiling.push(own);
  return ceiling;
}

function sameScope(first: InheritedRuleScope, second: InheritedRuleScope): boolean {
  return first.spaceId === second.spaceId && first.agentId === second.agentId;
}

/** Where an inherited decision came from, in words for the agent and the operator. */
export function describeInheritedScope(scope: InheritedRuleScope): string {
  const space = scope.spaceId ? `space ${scope.spaceName ? `${JSON.stringify(scope.spaceName)} ` : ''}(${scope.spaceId})` : 'no space';
  return `the rules of run ${scope.runId} that started this work (${space}, agent ${scope.agentId})`;
}
