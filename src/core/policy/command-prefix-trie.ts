import { mostRestrictive, type Decision } from '../decisions.js';

/** The decision a rule (or several tied rules) gives, and the rule that gave it. */
export interface RuleHit {
  readonly decision: Decision;
  readonly ruleId: string;
}

/** A token trie of command prefixes: lookups cost one map probe per argv token, whatever the rule count. */
export interface PrefixTrieNode {
  readonly children: Map<string, PrefixTrieNode>;
  hit: RuleHit | null;
}

/** An empty trie. */
export function createPrefixTrie(): PrefixTrieNode {
  return { children: new Map(), hit: null };
}

/** Combines two hits on the same key most-restrictively (POL-3 ties); on equal decisions the first rule stays. */
export function combineHits(existing: RuleHit | null, incoming: RuleHit): RuleHit {
  if (!existing) return incoming;
  return mostRestrictive(existing.decision, incoming.decision) === existing.decision ? existing : incoming;
}

/** Adds a prefix (already tokenized). */
export function insertPrefix(root: PrefixTrieNode, tokens: readonly string[], hit: RuleHit): void {
  let node = root;
  for (const token of tokens) {
    let child = node.children.get(token);
    if (!child) {
      child = createPrefixTrie();
      node.children.set(token, child);
    }
    node = child;
  }
  node.hit = combineHits(node.hit, hit);
}

/**
 * The rule of the longest prefix of `argv` (POL-3: "within a scope a command rule matches on the
 * longest prefix"). Token-wise: `git push` matches `git push origin main`, not `git pushx`.
 */
export function longestPrefixHit(root: PrefixTrieNode, argv: readonly string[]): RuleHit | null {
  let node: PrefixTrieNode | undefined = root;
  let best: RuleHit | null = null;
  for (let index = 0; index < argv.length; index += 1) {
    node = node.children.get(argv[index]!);
    if (!node) break;
    if (node.hit) best = node.hit;
  }
  return best;
}
