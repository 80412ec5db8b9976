import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { decideAction } from '../../src/core/policy/decide-action.js';
import { domainPatternProblems } from '../../src/core/policy/domain-pattern.js';
import { httpUrlHost } from '../../src/core/policy/http-url-host.js';
import type { PolicyAction } from '../../src/core/policy/policy-action.js';
import type { PolicyRule } from '../../src/core/policy/policy-rule.js';

/** TOOL-1: domain rules in the pure engine — specificity, scopes, the mode and dial, and which rule "names" a host. */
const fetchOf = (url: string): PolicyAction => ({ classes: ['networkEgress'], writesWorktree: false, tier: 'read', toolName: 'web_fetch', domain: httpUrlHost(url)! });
const domainRule = (id: string, domain: string, decision: PolicyRule['decision'], scope: PolicyRule['scope'] = 'workspace', scopeId = 'ws_1'): PolicyRule => ({ id, scope, scopeId, match: { kind: 'domain', domain }, decision });
const chat = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1', spaceId: 'sp_1' } as const;

describe('domain rules (TOOL-1)', () => {
  const policy = compilePolicy([
    domainRule('r_any', '*', 'ask'),
    domainRule('r_org', '*.example.org', 'deny'),
    domainRule('r_docs', 'docs.example.org', 'allow'),
    domainRule('r_deep', '*.api.example.org', 'allow'),
    { id: 'r_class', scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' },
    domainRule('r_space', 'docs.example.org', 'deny', 'space', 'sp_1'),
  ]);

  it('the most specific pattern decides: exact host, then the longest suffix, then *; a domain rule beats a class rule in its scope', () => {
    const decide = (url: string) => decideAction(policy, fetchOf(url), { ...chat, spaceId: 'sp_other' });
    expect(decide('https://docs.example.org/x')).toMatchObject({ decision: 'allow', decidedBy: { ruleId: 'r_docs' }, hostNamedByRule: true });
    expect(decide('https://v1.api.example.org/x')).toMatchObject({ decision: 'allow', decidedBy: { ruleId: 'r_deep' } });
    expect(decide('https://www.example.org/')).toMatchObject({ decision: 'deny', decidedBy: { ruleId: 'r_org' } });
    // The apex is no subdomain of itself: only * matches it.
    expect(decide('https://example.org/')).toMatchObject({ decision: 'ask', decidedBy: { ruleId: 'r_any' } });
    expect(decide('https://example.org/').hostNamedByRule).toBeUndefined();
    expect(decide('http://0x7f.1/')).toMatchObject({ decision: 'ask', decidedBy: { ruleId: 'r_any' } });
  });

  it('scopes keep their order: a space rule beats the workspace’s exact host; a deny never names a host', () => {
    const decision = decideAction(policy, fetchOf('https://docs.example.org/'), chat);
    expect(decision).toMatchObject({ decision: 'deny', decidedBy: { scope: 'space', ruleId: 'r_space' } });
    expect(decision.hostNamedByRule).toBeUndefined();
  });

  it('without a host (another networkEgress action) the class rule decides', () => {
    expect(decideAction(policy, { classes: ['networkEgress'], writesWorktree: false, tier: 'execute' }, chat)).toMatchObject({ decision: 'deny', decidedBy: { ruleId: 'r_class' } });
  });

  it('read-only modes keep networkEgress to the rules; the dial applies after them', () => {
    expect(decideAction(policy, fetchOf('https://docs.example.org/'), { ...chat, mode: 'plan', spaceId: 'sp_other' })).toMatchObject({ decision: 'allow', decidedBy: { ruleId: 'r_docs' } });
    expect(decideAction(policy, fetchOf('https://example.org/'), { ...chat, autonomy: 'actFreely', spaceId: 'sp_other' })).toMatchObject({ decision: 'allow', decidedBy: { scope: 'autonomy' } });
    expect(decideAction(policy, fetchOf('https://www.example.org/'), { ...chat, autonomy: 'actFreely', spaceId: 'sp_other' })).toMatchObject({ decision: 'deny' });
  });

  it('patterns: hosts, *.suffix, * and IP addresses pass; URLs, inner wildcards and bad labels do not', () => {
    for (const good of ['example.com', '*.example.com', '*', 'localhost', '10.0.0.7', '::1', '[::1]', 'Example.COM.']) expect(domainPatternProblems(good), good).toEqual([]);
    for (const bad of ['https://example.com', 'example.com/path', 'a.*.com', '*example.com', '-a.com', 'a..com', '', 'user@host']) expect(domainPatternProblems(bad).length, bad).toBeGreaterThan(0);
    expect(httpUrlHost('ftp://example.com/')).toBeUndefined();
    expect(httpUrlHost('http://[::FFFF:127.0.0.1]/')).toBe('::ffff:7f00:1');
  });
});
