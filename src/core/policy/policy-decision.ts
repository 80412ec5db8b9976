import type { Decision } from '../decisions.js';
import type { EffectClass } from '../effect-classes.js';
import type { RuleScope } from './policy-rule.js';

/**
 * Who decided (POL-3, and the architecture guide's "every decision carries the scope and rule that
 * made it"): an operator rule's scope, the mode preset, the built-in default, the autonomy dial, or a
 * pinned verb (CAP-6).
 */
export type DecisionScope = RuleScope | 'mode' | 'default' | 'autonomy' | 'pinned';

/** The scope and rule behind a decision; `ruleId` is `null` for built-in defaults. */
export interface DecidedBy {
  readonly scope: DecisionScope;
  readonly ruleId: string | null;
}

/** The engine's answer for one action (POL-1). */
export interface PolicyDecision {
  readonly decision: Decision;
  readonly decidedBy: DecidedBy;
  /** The action's effect classes, canonical order. */
  readonly classes: readonly EffectClass[];
  /** Every class that asked: one approval lists them all (POL-3). Empty unless the decision is `ask`. */
  readonly askedClasses: readonly EffectClass[];
  /** Every class that was denied. */
  readonly deniedClasses: readonly EffectClass[];
  /** One sentence for the operator and the agent: what decided and why. */
  readonly reason: string;
  /** Set when an `ask` became `deny` because nobody could answer (POL-4). */
  readonly failedClosed?: boolean;
  /**
   * TOOL-1: set when the action's host was decided by a rule naming that exact host (not a wildcard)
   * that allows or asks. Only then may `web_fetch` reach a loopback, private or link-local address.
   */
  readonly hostNamedByRule?: boolean;
}
