import type { EffectClass } from '../effect-classes.js';
import { combineHits, createPrefixTrie, insertPrefix, type PrefixTrieNode, type RuleHit } from './command-prefix-trie.js';
import { createDomainIndex, insertDomainPattern, type DomainIndex } from './domain-pattern.js';
import { InvalidPolicyRuleError } from './invalid-policy-rule-error.js';
import { tokenizeCommandPrefix, validatePolicyRule, type PolicyRule, type RuleScope } from './policy-rule.js';

/** Every rule of one (scope, scopeId), indexed by what it matches. */
export interface ScopeIndex {
  readonly classes: Map<EffectClass, RuleHit>;
  readonly commands: PrefixTrieNode;
  readonly fingerprints: Map<string, RuleHit>;
  /** Domain rules (TOOL-1), consulted for the networkEgress of a call that names its host. */
  readonly domains: DomainIndex;
  hasCommands: boolean;
}

/**
 * A rule store compiled once for fast decisions: per scope a map by scope id, and per (scope, id) a
 * map by class, a token trie of command prefixes and a map of fingerprints. A decision is a handful of
 * map probes however many rules the store holds; nothing scans the rule list.
 */
export interface CompiledPolicy {
  readonly ruleCount: number;
  readonly byScope: Readonly<Record<RuleScope, ReadonlyMap<string, ScopeIndex>>>;
  /**
   * All workspace-scope rules merged, used when a context names no workspace: a workspace's rules
   * live in its own database file (WS-1), so a store normally holds one workspace's rules anyway.
   */
  readonly anyWorkspace: ScopeIndex;
}

function createScopeIndex(): ScopeIndex {
  return { classes: new Map(), commands: createPrefixTrie(), fingerprints: new Map(), domains: createDomainIndex(), hasCommands: false };
}

function addRule(index: ScopeIndex, rule: PolicyRule): void {
  const hit: RuleHit = { decision: rule.decision, ruleId: rule.id };
  const { match } = rule;
  if (match.kind === 'class') {
    index.classes.set(match.effectClass, combineHits(index.classes.get(match.effectClass) ?? null, hit));
  } else if (match.kind === 'command') {
    insertPrefix(index.commands, tokenizeCommandPrefix(match.prefix), hit);
    index.hasCommands = true;
  } else if (match.kind === 'domain') {
    insertDomainPattern(index.domains, match.domain, hit);
  } else {
    index.fingerprints.set(match.fingerprint, combineHits(index.fingerprints.get(match.fingerprint) ?? null, hit));
  }
}

/**
 * Compiles a rule list (POL-3). Rules that tie on the same key in the same scope are combined
 * most-restrictively here, once. Throws {@link InvalidPolicyRuleError} on an invalid rule: silently
 * dropping a deny would fail open.
 */
export function compilePolicy(rules: readonly PolicyRule[]): CompiledPolicy {
  const problems = rules.flatMap(validatePolicyRule);
  if (problems.length > 0) throw new InvalidPolicyRuleError(problems);
  const byScope: Record<RuleScope, Map<string, ScopeIndex>> = { space: new Map(), agent: new Map(), workspace: new Map() };
  const anyWorkspace = createScopeIndex();
  for (const rule of rules) {
    const scopeMap = byScope[rule.scope];
    let index = scopeMap.get(rule.scopeId);
    if (!index) {
      index = createScopeIndex();
      scopeMap.set(rule.scopeId, index);
    }
    addRule(index, rule);
    if (rule.scope === 'workspace') addRule(anyWorkspace, rule);
  }
  return { ruleCount: rules.length, byScope, anyWorkspace };
}
