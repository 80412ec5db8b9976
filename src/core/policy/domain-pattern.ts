import { combineHits, type RuleHit } from './command-prefix-trie.js';

/**
 * Domain rules (TOOL-1): what a `domain` policy rule matches. A pattern is one of
 * - an exact host: `example.com`, `localhost`, `10.0.0.7`, `::1` (an IPv6 address, brackets optional);
 * - a wildcard over subdomains: `*.example.com` matches `a.example.com` and `a.b.example.com`, not
 *   `example.com` itself (write both when both are meant);
 * - `*`: every host.
 * Only an exact pattern "names" a host: it is what lets `web_fetch` reach a loopback, private or
 * link-local address; a wildcard never does, so `*` allow cannot open the metadata address by accident.
 */

/** Lower-cased, without IPv6 brackets and without a trailing dot, the way patterns and URLs are compared. */
export function normalizeHost(host: string): string {
  let normalized = host.trim().toLowerCase();
  if (normalized.startsWith('[') && normalized.endsWith(']')) normalized = normalized.slice(1, -1);
  if (normalized.endsWith('.')) normalized = normalized.slice(0, -1);
  return normalized;
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const IPV6 = /^[0-9a-f:.]+$/;

/** Problems with a domain pattern (empty when valid). */
export function domainPatternProblems(pattern: string): string[] {
  if (typeof pattern !== 'string' || pattern.trim().length === 0) return ['empty domain pattern'];
  const normalized = normalizeHost(pattern);
  if (normalized === '*') return [];
  if (normalized.length > 253) return [`domain pattern ${JSON.stringify(pattern)} is longer than 253 characters`];
  if (/[/?#@\s]/.test(normalized)) return [`${JSON.stringify(pattern)} is a host name, not a URL: write example.com, not https://example.com/`];
  if (normalized.includes(':')) {
    return IPV6.test(normalized) ? [] : [`${JSON.stringify(pattern)} is neither a host name nor an IP address`];
  }
  const body = normalized.startsWith('*.') ? normalized.slice(2) : normalized;
  if (body.includes('*')) return [`${JSON.stringify(pattern)}: a wildcard is allowed only as the whole first label (*.example.com)`];
  if (!body.split('.').every((label) => LABEL.test(label))) return [`${JSON.stringify(pattern)} is not a valid host name`];
  return [];
}

/** Domain rules of one scope, compiled: exact hosts and wildcard suffixes, each a map probe. */
export interface DomainIndex {
  readonly exact: Map<string, RuleHit>;
  /** Keyed by the suffix after `*.` (`example.com` for `*.example.com`); `''` holds `*`. */
  readonly wildcard: Map<string, RuleHit>;
}

export function createDomainIndex(): DomainIndex {
  return { exact: new Map(), wildcard: new Map() };
}

/** Adds one rule's pattern; ties on the same pattern combine most-restrictively (POL-3). */
export function insertDomainPattern(index: DomainIndex, pattern: string, hit: RuleHit): void {
  const normalized = normalizeHost(pattern);
  if (normalized === '*') index.wildcard.set('', combineHits(index.wildcard.get('') ?? null, hit));
  else if (normalized.startsWith('*.')) index.wildcard.set(normalized.slice(2), combineHits(index.wildcard.get(normalized.slice(2)) ?? null, hit));
  else index.exact.set(normalized, combineHits(index.exact.get(normalized) ?? null, hit));
}

/** The rule a host matches, most specific first: the exact host, then the longest wildcard suffix, then `*`. */
export interface DomainHit extends RuleHit {
  /** True when the pattern was the exact host (a rule that "names" it). */
  readonly exact: boolean;
  readonly pattern: string;
}

/** Looks a host up: one probe for the exact host, then one per dot of it, then `*`. */
export function lookupDomain(index: DomainIndex, host: string): DomainHit | null {
  const normalized = normalizeHost(host);
  const exact = index.exact.get(normalized);
  if (exact) return { ...exact, exact: true, pattern: normalized };
  // An IP address has no subdomains: only `*` can match it besides the exact address.
  const isAddress = normalized.includes(':') || /^[0-9.]+$/.test(normalized);
  if (!isAddress) {
    for (let dot = normalized.indexOf('.'); dot !== -1; dot = normalized.indexOf('.', dot + 1)) {
      const suffix = normalized.slice(dot + 1);
      const hit = index.wildcard.get(suffix);
      if (hit) return { ...hit, exact: false, pattern: `*.${suffix}` };
    }
  }
  const any = index.wildcard.get('');
  return any ? { ...any, exact: false, pattern: '*' } : null;
}
