import { decisionSeverity, type Decision } from '../decisions.js';
import { canonicalEffectClasses, DEFAULT_EFFECT_DECISIONS, type EffectClass } from '../effect-classes.js';
import { CAPABILITY_PROFILES } from '../capability-profiles.js';
import { buildGuardPreset, modeForbidRuleId, modeReadOnlyRuleId, type GuardPreset } from '../guard-preset.js';
import { MODES, type Mode } from '../modes.js';
import { applyAutonomyDial } from './autonomy-dial.js';
import { longestPrefixHit, type RuleHit } from './command-prefix-trie.js';
import type { CompiledPolicy, ScopeIndex } from './compile-policy.js';
import { lookupDomain } from './domain-pattern.js';
import type { ActionSubcommand, PolicyAction, PolicyContext } from './policy-action.js';
import type { DecidedBy, PolicyDecision } from './policy-decision.js';
import type { RuleScope } from './policy-rule.js';

/** What the engine needs of a mode, projected once from its profile (CAP-2). */
interface ModeGuard {
  readonly preset: GuardPreset;
  readonly forbidden: ReadonlySet<EffectClass>;
  readonly pinned: ReadonlySet<string>;
}

function projectModeGuards(): Record<Mode, ModeGuard> {
  const guards = {} as Record<Mode, ModeGuard>;
  for (const mode of MODES) {
    const profile = CAPABILITY_PROFILES[mode];
    const preset = buildGuardPreset(profile);
    guards[mode] = { preset, forbidden: new Set(preset.forbiddenEffects), pinned: new Set(profile.pinnedTools) };
  }
  return guards;
}

const MODE_GUARDS: Readonly<Record<Mode, ModeGuard>> = projectModeGuards();

/** What a facet is about: one effect class, a write inside the worktree, or a command with no class at all. */
type Facet = EffectClass | 'worktreeWrite' | 'command';

interface ScopeLookup {
  readonly scope: RuleScope;
  readonly index: ScopeIndex;
}

interface FacetResult {
  readonly decision: Decision;
  readonly decidedBy: DecidedBy;
  readonly reason: string;
  /** TOOL-1: decided by a rule naming the action's exact host. */
  readonly namedHost?: boolean;
}

function describe(facet: Facet): string {
  return facet === 'worktreeWrite' ? 'a write inside the worktree' : facet === 'command' ? 'this command' : facet;
}

/**
 * Resolves one facet of an action (POL-3): the mode's forbidden classes and read-only worktree first
 * (they define the mode, CAP-1c, CAP-2, and no operator rule lifts them), then space > agent >
 * workspace — the first scope with a matching rule decides, and within a scope a remembered
 * fingerprint beats the longest command prefix, which beats the most specific domain rule (for the
 * networkEgress of a call that names its host, TOOL-1), which beats a class rule — then the built-in
 * default.
 */
function resolveFacet(
  facet: Facet,
  argv: readonly string[] | null,
  commandHits: (RuleHit | null | undefined)[],
  scopes: readonly ScopeLookup[],
  fingerprint: string | undefined,
  mode: Mode,
  domain?: string,
): FacetResult {
  const guard = MODE_GUARDS[mode];
  if (facet === 'worktreeWrite' && guard.preset.denyWorktreeWrites) {
    return { decision: 'deny', decidedBy: { scope: 'mode', ruleId: modeReadOnlyRuleId(mode) }, reason: `Denied: the worktree is read-only in ${mode} mode (CAP-5).` };
  }
  if (facet !== 'worktreeWrite' && facet !== 'command' && guard.forbidden.has(facet)) {
    return { decision: 'deny', decidedBy: { scope: 'mode', ruleId: modeForbidRuleId(mode, facet) }, reason: `Denied: ${mode} mode forbids ${facet} (CAP-4).` };
  }
  for (let position = 0; position < scopes.length; position += 1) {
    const { scope, index } = scopes[position]!;
    let hit: RuleHit | null | undefined = fingerprint === undefined ? undefined : index.fingerprints.get(fingerprint);
    if (!hit && argv !== null && index.hasCommands) {
      if (commandHits[position] === undefined) commandHits[position] = longestPrefixHit(index.commands, argv);
      hit = commandHits[position];
    }
    if (!hit && facet === 'networkEgress' && domain !== undefined) {
      const domainHit = lookupDomain(index.domains, domain);
      if (domainHit) {
        const named = domainHit.exact && domainHit.decision !== 'deny';
        return {
          decision: domainHit.decision,
          decidedBy: { scope, ruleId: domainHit.ruleId },
          reason: `${capitalize(domainHit.decision)} by ${scope} rule ${domainHit.ruleId} (domain ${domainHit.pattern}) for networkEgress to ${domain}.`,
          ...(named ? { namedHost: true } : {}),
        };
      }
    }
    if (!hit && facet !== 'worktreeWrite' && facet !== 'command') hit = index.classes.get(facet);
    if (hit) {
      return { decision: hit.decision, decidedBy: { scope, ruleId: hit.ruleId }, reason: `${capitalize(hit.decision)} by ${scope} rule ${hit.ruleId} for ${describe(facet)}.` };
    }
  }
  const decision: Decision = facet === 'worktreeWrite' || facet === 'command' ? 'allow' : DEFAULT_EFFECT_DECISIONS[facet];
  return { decision, decidedBy: { scope: 'default', ruleId: null }, reason: `${capitalize(decision)} by the built-in default for ${describe(facet)}.` };
}

function capitalize(decision: Decision): string {
  return decision === 'allow' ? 'Allowed' : decision === 'ask' ? 'Asks' : 'Denied';
}

function scopeLookups(policy: CompiledPolicy, context: PolicyContext): ScopeLookup[] {
  const lookups: ScopeLookup[] = [];
  const space = context.spaceId === undefined ? undefined : policy.byScope.space.get(context.spaceId);
  if (space) lookups.push({ scope: 'space', index: space });
  const agent = context.agentId === undefined ? undefined : policy.byScope.agent.get(context.agentId);
  if (agent) lookups.push({ scope: 'agent', index: agent });
  const workspace = context.workspaceId === undefined ? policy.anyWorkspace : policy.byScope.workspace.get(context.workspaceId);
  if (workspace) lookups.push({ scope: 'workspace', index: workspace });
  return lookups;
}

/**
 * Decides one action (POL-1, POL-3, POL-5, CAP-6). Every call re-resolves from scratch: no latch.
 * 1. The mode's pinned verbs are allowed (`decidedBy: pinned`) whatever the rules or the dial (CAP-6).
 * 2. Read-tier calls with no effect are allowed.
 * 3. Each facet — every class of every subcommand, every worktree write, every class-less command —
 *    resolves on its own (see {@link resolveFacet}); facets combine most-restrictively, and the
 *    decision lists every class that asked.
 * 4. The autonomy dial applies ({@link applyAutonomyDial}); a deny survives it.
 * Fail-closed for missing approvers is the caller's second step: `applyApproverAvailability` (POL-4).
 */
export function decideAction(policy: CompiledPolicy, action: PolicyAction, context: PolicyContext): PolicyDecision {
  const classes = action.classes.length <= 1 ? action.classes : canonicalEffectClasses(action.classes);
  const guard = MODE_GUARDS[context.mode];
  if (action.pinned === true || (action.toolName !== undefined && guard.pinned.has(action.toolName))) {
    const name = action.toolName ?? 'this verb';
    return {
      decision: 'allow',
      decidedBy: { scope: 'pinned', ruleId: `pinned:${context.mode}:${name}` },
      classes,
      askedClasses: [],
      deniedClasses: [],
      reason: `Allowed: ${name} is pinned in ${context.mode} mode and cannot be denied (CAP-6).`,
    };
  }
  const subcommands: readonly ActionSubcommand[] | undefined = action.commandSubcommands;
  if (action.tier === 'read' && classes.length === 0 && !action.writesWorktree && (!subcommands || subcommands.length === 0)) {
    return { decision: 'allow', decidedBy: { scope: 'default', ruleId: null }, classes, askedClasses: [], deniedClasses: [], reason: 'Allowed: a read-level call with no effect.' };
  }

  const scopes = scopeLookups(policy, context);
  const combined = { worst: null as FacetResult | null, asked: [] as EffectClass[], denied: [] as EffectClass[], askedWorktree: false };
  const consider = (facet: Facet, result: FacetResult): void => {
    if (result.decision === 'ask') {
      if (facet === 'worktreeWrite') combined.askedWorktree = true;
      else if (facet !== 'command' && !combined.asked.includes(facet)) combined.asked.push(facet);
    } else if (result.decision === 'deny' && facet !== 'worktreeWrite' && facet !== 'command' && !combined.denied.includes(facet)) {
      combined.denied.push(facet);
    }
    // Most restrictive wins; on a tie the first facet (source order) keeps the credit.
    if (!combined.worst || decisionSeverity(result.decision) > decisionSeverity(combined.worst.decision)) combined.worst = result;
  };

  const coveredClasses = new Set<EffectClass>();
  let coveredWorktree = false;
  for (const subcommand of subcommands ?? []) {
    const commandHits: (RuleHit | null | undefined)[] = [];
    for (const effectClass of subcommand.classes) {
      coveredClasses.add(effectClass);
      consider(effectClass, resolveFacet(effectClass, subcommand.argv, commandHits, scopes, action.fingerprint, context.mode));
    }
    if (subcommand.writesWorktree) {
      coveredWorktree = true;
      consider('worktreeWrite', resolveFacet('worktreeWrite', subcommand.argv, commandHits, scopes, action.fingerprint, context.mode));
    }
    if (subcommand.classes.length === 0 && !subcommand.writesWorktree) {
      consider('command', resolveFacet('command', subcommand.argv, commandHits, scopes, action.fingerprint, context.mode));
    }
  }
  let namedHost = false;
  for (const effectClass of classes) {
    if (coveredClasses.has(effectClass)) continue;
    const result = resolveFacet(effectClass, null, [], scopes, action.fingerprint, context.mode, action.domain);
    if (result.namedHost) namedHost = true;
    consider(effectClass, result);
  }
  if (action.writesWorktree && !coveredWorktree) consider('worktreeWrite', resolveFacet('worktreeWrite', null, [], scopes, action.fingerprint, context.mode));
  const ruled = combined.worst ?? resolveFacet('command', null, [], scopes, action.fingerprint, context.mode);

  const askedClasses = ruled.decision === 'ask' ? canonicalEffectClasses(combined.asked) : [];
  const needs = [...askedClasses, ...(combined.askedWorktree ? ['worktree write'] : [])];
  const reason = ruled.decision === 'ask' && needs.length > 1 ? `${ruled.reason} Approval needed for: ${needs.join(', ')}.` : ruled.reason;
  const dialed = applyAutonomyDial({ decision: ruled.decision, decidedBy: ruled.decidedBy, askedClasses, reason }, context.autonomy, action.tier, classes);
  return {
    decision: dialed.decision,
    decidedBy: dialed.decidedBy,
    classes,
    askedClasses: dialed.decision === 'ask' ? dialed.askedClasses : [],
    deniedClasses: dialed.decision !== 'deny' ? [] : dialed.decidedBy.scope === 'autonomy' ? classes : canonicalEffectClasses(combined.denied),
    reason: dialed.reason,
    ...(namedHost && dialed.decision !== 'deny' ? { hostNamedByRule: true } : {}),
  };
}
