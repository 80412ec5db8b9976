import type { Decision } from '../decisions.js';
import type { EffectClass } from '../effect-classes.js';
import type { AutonomyLevel } from '../modes.js';
import { tierRank, type ToolTier } from '../tool-descriptor.js';
import type { DecidedBy } from './policy-decision.js';

/** A decision before or after the dial, with the fields the dial may change. */
export interface DialInput {
  readonly decision: Decision;
  readonly decidedBy: DecidedBy;
  readonly askedClasses: readonly EffectClass[];
  readonly reason: string;
}

/** Rule id the dial cites, e.g. `autonomy:askFirst`. */
export function autonomyRuleId(autonomy: AutonomyLevel): string {
  return `autonomy:${autonomy}`;
}

/**
 * The autonomy dial as a profile over the same engine (POL-5), applied after the rules:
 * - `proposeOnly`: every call above read level is denied (the agent can still reason and reply);
 * - `askFirst`: every call above read level asks, unless it is already denied;
 * - `actWithApproval`: the rules decide;
 * - `actFreely`: `ask` becomes `allow`; `deny` survives.
 * A deny is never weakened by any setting (the architecture guide's "deny survives every dial").
 */
export function applyAutonomyDial(input: DialInput, autonomy: AutonomyLevel, tier: ToolTier, classes: readonly EffectClass[]): DialInput {
  const aboveRead = tierRank(tier) > 0;
  const decidedBy: DecidedBy = { scope: 'autonomy', ruleId: autonomyRuleId(autonomy) };
  switch (autonomy) {
    case 'proposeOnly':
      if (!aboveRead || input.decision === 'deny') return input;
      return { decision: 'deny', decidedBy, askedClasses: [], reason: `The space's autonomy is "propose only": calls above read level are denied; describe the change instead (POL-5).` };
    case 'askFirst':
      if (!aboveRead || input.decision !== 'allow') return input;
      return { decision: 'ask', decidedBy, askedClasses: classes, reason: `The space's autonomy is "ask first": every call above read level asks (POL-5).` };
    case 'actWithApproval':
      return input;
    case 'actFreely':
      if (input.decision !== 'ask') return input;
      return { decision: 'allow', decidedBy, askedClasses: [], reason: `The space's autonomy is "act freely": asks are allowed without asking (POL-5); was: ${input.reason}` };
  }
}
