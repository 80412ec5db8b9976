import type { Decision } from '../decisions.js';
import { isEffectClass, type EffectClass } from '../effect-classes.js';
import { domainPatternProblems } from './domain-pattern.js';

/** Where an operator rule applies, most specific first (POL-3). */
export const RULE_SCOPES = ['space', 'agent', 'workspace'] as const;

/** A rule's scope: one space, one agent, or the whole workspace. */
export type RuleScope = (typeof RULE_SCOPES)[number];

/**
 * What a rule matches (POL-3): an effect class, a command prefix (token-wise against each shell
 * subcommand's argv after wrappers are removed), the fingerprint of one remembered action, or the
 * host a network call reaches (TOOL-1: `example.com`, `*.example.com`, `*`; see domain-pattern.ts).
 */
export type RuleMatch =
  | { readonly kind: 'class'; readonly effectClass: EffectClass }
  | { readonly kind: 'command'; readonly prefix: string }
  | { readonly kind: 'domain'; readonly domain: string }
  | { readonly kind: 'fingerprint'; readonly fingerprint: string };

/** An operator policy rule (POL-3): (scope, match) → allow | ask | deny. Agents have no rules of their own (POL-1). */
export interface PolicyRule {
  readonly id: string;
  readonly scope: RuleScope;
  /** The space, agent or workspace id the rule belongs to. */
  readonly scopeId: string;
  readonly match: RuleMatch;
  readonly decision: Decision;
}

/** Splits a command prefix into the tokens matched against argv (`"git  push"` → `['git', 'push']`). */
export function tokenizeCommandPrefix(prefix: string): string[] {
  return prefix.trim().split(/\s+/).filter((token) => token.length > 0);
}

/** Checks one rule; returns every problem (empty when valid). */
export function validatePolicyRule(rule: PolicyRule): string[] {
  const problems: string[] = [];
  const label = `rule ${JSON.stringify(rule.id)}`;
  if (typeof rule.id !== 'string' || rule.id.length === 0) problems.push('a rule needs a non-empty id');
  if (!(RULE_SCOPES as readonly string[]).includes(rule.scope)) problems.push(`${label}: scope ${JSON.stringify(rule.scope)} is not space, agent or workspace`);
  if (typeof rule.scopeId !== 'string') problems.push(`${label}: scopeId must be a string`);
  if (rule.decision !== 'allow' && rule.decision !== 'ask' && rule.decision !== 'deny') problems.push(`${label}: decision ${JSON.stringify(rule.decision)} is not allow, ask or deny`);
  const match = rule.match as RuleMatch | undefined;
  if (!match) {
    problems.push(`${label}: missing match`);
  } else if (match.kind === 'class') {
    if (!isEffectClass(match.effectClass)) problems.push(`${label}: ${JSON.stringify(match.effectClass)} is not an effect class (POL-2)`);
  } else if (match.kind === 'command') {
    if (typeof match.prefix !== 'string' || tokenizeCommandPrefix(match.prefix).length === 0) problems.push(`${label}: empty command prefix`);
  } else if (match.kind === 'domain') {
    problems.push(...domainPatternProblems(match.domain).map((problem) => `${label}: ${problem}`));
  } else if (match.kind === 'fingerprint') {
    if (typeof match.fingerprint !== 'string' || match.fingerprint.length === 0) problems.push(`${label}: empty fingerprint`);
  } else {
    problems.push(`${label}: unknown match kind ${JSON.stringify((match as { kind?: unknown }).kind)}`);
  }
  return problems;
}
