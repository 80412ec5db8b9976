/** A policy answer (POL-1): run it, ask an operator first, or refuse. */
export type Decision = 'allow' | 'ask' | 'deny';

/** The three decisions, least to most restrictive. */
export const DECISIONS: readonly Decision[] = ['allow', 'ask', 'deny'];

const SEVERITY: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, deny: 2 };

/** Severity rank of a decision: allow 0 < ask 1 < deny 2. */
export function decisionSeverity(decision: Decision): number {
  return SEVERITY[decision];
}

/**
 * The more restrictive of two decisions (deny > ask > allow). POL-3 combines ties and multi-class
 * actions this way so that no single permissive answer can mask a stricter one.
 */
export function mostRestrictive(first: Decision, second: Decision): Decision {
  return SEVERITY[first] >= SEVERITY[second] ? first : second;
}
