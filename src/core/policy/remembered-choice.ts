import { createHash } from 'node:crypto';
import type { Decision } from '../decisions.js';
import { canonicalEffectClasses, type EffectClass } from '../effect-classes.js';
import { normalizeCommandWhitespace } from '../shell/command-whitespace.js';
import type { PolicyRule } from './policy-rule.js';

/**
 * A stable fingerprint of an action for "remember this choice" (POL-3): the classes (order and
 * duplicates ignored) and the action summary with only its layout normalised — whitespace inside
 * quotes and here-documents is kept, and a line break stays apart from a space, so `rm "a  b"` and
 * `rm "a b"` (two files) or `echo x<newline>rm y` and `echo x rm y` never share a remembered choice.
 * Same action, same fingerprint; a different command or a different class set never collides in
 * practice (SHA-256, 128 bits kept).
 */
export function fingerprintAction(classes: Iterable<EffectClass>, summary: string): string {
  const canonical = `${canonicalEffectClasses(classes).join(',')}\n${normalizeCommandWhitespace(summary)}`;
  return `fp_${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}`;
}

/** Input of {@link rememberChoiceRule}. */
export interface RememberedChoice {
  readonly workspaceId: string;
  readonly classes: Iterable<EffectClass>;
  readonly summary: string;
  readonly decision: Decision;
  /** Rule id; defaults to one derived from the fingerprint (so remembering twice replaces, not duplicates). */
  readonly id?: string;
}

/**
 * The rule an operator's "remember this choice" records (POL-3): workspace scope, matched by the
 * action's fingerprint. Space and agent rules still outrank it (specificity first).
 */
export function rememberChoiceRule(choice: RememberedChoice): PolicyRule {
  const fingerprint = fingerprintAction(choice.classes, choice.summary);
  return {
    id: choice.id ?? `remembered:${fingerprint}`,
    scope: 'workspace',
    scopeId: choice.workspaceId,
    match: { kind: 'fingerprint', fingerprint },
    decision: choice.decision,
  };
}
