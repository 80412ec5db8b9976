import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUTONOMY_LEVELS,
  InvalidPolicyRuleError,
  applyApproverAvailability,
  classifyShellCommand,
  compilePolicy,
  decideAction,
  fingerprintAction,
  loadShellParser,
  rememberChoiceRule,
  shellAction,
  toolAction,
  type AutonomyLevel,
  type Decision,
  type EffectClass,
  type PolicyAction,
  type PolicyContext,
  type PolicyRule,
  type RuleMatch,
  type RuleScope,
} from '../../src/core/index.js';
import { SAMPLE_REGISTRY } from '../support/sample-registry.js';

const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1', spaceId: 'sp_1', agentId: 'ag_1' };
const SCOPE_IDS: Record<RuleScope, string> = { space: 'sp_1', agent: 'ag_1', workspace: 'ws_1' };

let ruleCounter = 0;
function rule(scope: RuleScope, match: RuleMatch, decision: Decision, id?: string): PolicyRule {
  ruleCounter += 1;
  return { id: id ?? `${scope}-${decision}-${ruleCounter}`, scope, scopeId: SCOPE_IDS[scope], match, decision };
}
const cls = (effectClass: EffectClass): RuleMatch => ({ kind: 'class', effectClass });
const cmd = (prefix: string): RuleMatch => ({ kind: 'command', prefix });

beforeAll(async () => {
  await loadShellParser();
});

function shell(command: string): PolicyAction {
  return shellAction(classifyShellCommand(command));
}

function decide(rules: PolicyRule[], action: PolicyAction, context: Partial<PolicyContext> = {}) {
  return decideAction(compilePolicy(rules), action, { ...CONTEXT, ...context });
}

const SCOPES: RuleScope[] = ['space', 'agent', 'workspace'];
const SCOPE_PAIRS = SCOPES.flatMap((narrow, index) => SCOPES.slice(index + 1).map((broad) => [narrow, broad] as const));

describe('policy precedence (POL-3)', () => {
  it.each(SCOPE_PAIRS)('POL-3: a %s deny beats a %s allow (specificity first)', (narrow, broad) => {
    const denied = decide([rule(broad, cls('networkEgress'), 'allow'), rule(narrow, cls('networkEgress'), 'deny', 'narrow-deny')], shell('curl https://x'));
    expect(denied.decision).toBe('deny');
    expect(denied.decidedBy).toEqual({ scope: narrow, ruleId: 'narrow-deny' });
  });

  it.each(SCOPE_PAIRS)('POL-3: a %s allow beats a %s deny (specificity first, the other direction)', (narrow, broad) => {
    const allowed = decide([rule(broad, cls('networkEgress'), 'deny'), rule(narrow, cls('networkEgress'), 'allow', 'narrow-allow')], shell('curl https://x'));
    expect(allowed.decision).toBe('allow');
    expect(allowed.decidedBy).toEqual({ scope: narrow, ruleId: 'narrow-allow' });
  });

  it.each(SCOPE_PAIRS)('POL-3: a %s command deny beats a %s class allow, and vice versa', (narrow, broad) => {
    expect(decide([rule(broad, cls('gitPush'), 'allow'), rule(narrow, cmd('git push'), 'deny')], shell('git push origin main')).decision).toBe('deny');
    expect(decide([rule(broad, cls('gitPush'), 'deny'), rule(narrow, cmd('git push'), 'allow')], shell('git push origin main')).decision).toBe('allow');
    expect(decide([rule(broad, cmd('git push'), 'allow'), rule(narrow, cls('gitPush'), 'deny')], shell('git push origin main')).decision).toBe('deny');
    expect(decide([rule(broad, cmd('git push'), 'deny'), rule(narrow, cls('gitPush'), 'allow'), rule(narrow, cls('networkEgress'), 'allow')], shell('git push origin main')).decision).toBe('allow');
  });

  it.each(SCOPES)('POL-3: any %s rule beats the built-in default, both directions', (scope) => {
    expect(decide([rule(scope, cls('gitPush'), 'allow', 'r')], shell('git push')).decidedBy).toEqual({ scope, ruleId: 'r' });
    expect(decide([rule(scope, cls('gitPush'), 'allow')], shell('git push')).decision).toBe('allow');
    expect(decide([rule(scope, cls('processSpawn'), 'deny')], shell('vitest run')).decision).toBe('deny');
  });

  it('POL-2/POL-3: with no rules the built-in defaults decide', () => {
    const push = decide([], shell('git push'));
    expect(push).toMatchObject({ decision: 'ask', decidedBy: { scope: 'default', ruleId: null }, askedClasses: ['gitPush'] });
    expect(decide([], shell('vitest run')).decision).toBe('allow');
    expect(decide([], shell('rm -rf build')).decision).toBe('ask');
  });

  it('POL-3: rules of other spaces, agents and workspaces do not apply', () => {
    const rules: PolicyRule[] = [
      { id: 'other-space', scope: 'space', scopeId: 'sp_2', match: cls('gitPush'), decision: 'deny' },
      { id: 'other-agent', scope: 'agent', scopeId: 'ag_2', match: cls('gitPush'), decision: 'deny' },
      { id: 'other-ws', scope: 'workspace', scopeId: 'ws_2', match: cls('gitPush'), decision: 'deny' },
    ];
    expect(decide(rules, shell('git push')).decision).toBe('ask');
  });

  it('POL-3: within a scope the longest command prefix wins (token-wise)', () => {
    const rules = [rule('workspace', cmd('git'), 'allow'), rule('workspace', cmd('git push'), 'deny', 'push'), rule('workspace', cmd('git push origin feature'), 'allow', 'feature')];
    expect(decide(rules, shell('git push origin main')).decidedBy.ruleId).toBe('push');
    expect(decide(rules, shell('git push origin main')).decision).toBe('deny');
    expect(decide(rules, shell('git push origin feature --force')).decision).toBe('allow');
    expect(decide(rules, shell('git push origin feature --force')).decidedBy.ruleId).toBe('feature');
    // `git push` never matches `git pushx`: tokens, not characters.
    expect(decide([rule('workspace', cmd('git push'), 'deny')], shell('git pushx')).decidedBy).toEqual({ scope: 'default', ruleId: null });
    expect(decide([rule('workspace', cmd('git push'), 'deny')], shell('git push')).decision).toBe('deny');
  });

  it('POL-3: within a scope a command rule beats a class rule (the command names the concrete action)', () => {
    const rules = [rule('workspace', cls('gitPush'), 'deny'), rule('workspace', cmd('git push origin feature'), 'allow', 'feature'), rule('workspace', cls('networkEgress'), 'allow')];
    expect(decide(rules, shell('git push origin feature')).decision).toBe('allow');
    expect(decide(rules, shell('git push origin main')).decision).toBe('deny');
  });

  it('POL-3: command prefixes match after wrappers are peeled and inside sh -c', () => {
    const rules = [rule('workspace', cmd('git push'), 'deny', 'no-push')];
    for (const command of ['timeout 5 git push', 'sudo git push', 'bash -c "git push"', 'env A=1 nice git push origin', '/usr/bin/git push']) {
      expect(decide(rules, shell(command)).decision, command).toBe('deny');
    }
  });

  it('POL-3: ties in one scope combine most-restrictively', () => {
    const tie = decide([rule('workspace', cls('processSpawn'), 'allow'), rule('workspace', cls('processSpawn'), 'deny', 'strict'), rule('workspace', cls('processSpawn'), 'ask')], shell('vitest run'));
    expect(tie).toMatchObject({ decision: 'deny', decidedBy: { scope: 'workspace', ruleId: 'strict' } });
    const prefixTie = decide([rule('space', cmd('make  test'), 'ask'), rule('space', cmd('make test'), 'allow')], shell('make test'));
    expect(prefixTie.decision).toBe('ask');
  });

  it('POL-3: a multi-class action combines most-restrictively and one approval lists every class that asked', () => {
    const both = decide([], shell('rm -rf build && git push && gh pr create --fill'));
    expect(both.decision).toBe('ask');
    expect(both.askedClasses).toEqual(['fileDelete', 'gitPush', 'prCreate']);
    expect(both.reason).toMatch(/fileDelete, gitPush, prCreate/);
    const denied = decide([rule('agent', cls('prCreate'), 'deny', 'no-pr')], shell('rm -rf build && gh pr create --fill'));
    expect(denied).toMatchObject({ decision: 'deny', decidedBy: { scope: 'agent', ruleId: 'no-pr' }, deniedClasses: ['prCreate'], askedClasses: [] });
  });

  it('POL-3: a broad allow never silently defeats a narrower deny on another class of the same action', () => {
    const rules = [rule('space', cls('fileDelete'), 'allow'), rule('workspace', cls('networkEgress'), 'deny', 'offline')];
    expect(decide(rules, shell('rm x && curl https://x'))).toMatchObject({ decision: 'deny', decidedBy: { scope: 'workspace', ruleId: 'offline' } });
  });

  it('CAP-4/CAP-2: the mode preset is a floor no operator rule lifts', () => {
    const rules = SCOPES.map((scope) => rule(scope, cls('fileDelete'), 'allow'));
    const plan = decide(rules, shell('rm x'), { mode: 'plan' });
    expect(plan).toMatchObject({ decision: 'deny', decidedBy: { scope: 'mode', ruleId: 'mode:plan:forbid:fileDelete' } });
    const readOnly = decide([rule('space', cmd('echo'), 'allow')], shell('echo x > notes.md'), { mode: 'review' });
    expect(readOnly).toMatchObject({ decision: 'deny', decidedBy: { scope: 'mode', ruleId: 'mode:review:readOnlyWorktree' } });
    expect(decide([], shell('curl https://example.com'), { mode: 'plan' }).decision).toBe('allow');
    expect(decide([], shell('cat .env'), { mode: 'orchestrate' }).decision).toBe('allow');
    expect(decide([], shell('ls -la && git log'), { mode: 'plan' }).decision).toBe('allow');
  });

  it('POL-2: the python heredoc bypass is denied in plan mode', () => {
    expect(decide([], shell("python - <<'EOF'\nopen('x','w').write('y')\nEOF"), { mode: 'plan' }).decision).toBe('deny');
    expect(decide([], shell('bash -c "rm -rf x"'), { mode: 'plan' }).decision).toBe('deny');
    expect(decide([], shell('echo x > file'), { mode: 'plan' }).decision).toBe('deny');
  });

  it('POL-1: non-shell tool actions resolve on their declared classes', () => {
    const push = SAMPLE_REGISTRY.find((tool) => tool.name === 'git_push')!;
    expect(decide([], toolAction(push)).decision).toBe('ask');
    expect(decide([rule('workspace', cls('gitPush'), 'allow')], toolAction(push)).decision).toBe('allow');
    const write = SAMPLE_REGISTRY.find((tool) => tool.name === 'write_file')!;
    expect(decide([], toolAction(write)).decision).toBe('allow');
    expect(decide([], toolAction(write), { mode: 'plan' }).decidedBy.ruleId).toBe('mode:plan:readOnlyWorktree');
  });

  it('a command rule can ask for a class-less command', () => {
    expect(decide([rule('workspace', cmd('cat'), 'ask', 'cat')], shell('cat README.md'))).toMatchObject({ decision: 'ask', decidedBy: { ruleId: 'cat' } });
  });

  it('read-tier calls with no classes are allowed, whatever the dial', () => {
    const read = toolAction(SAMPLE_REGISTRY.find((tool) => tool.name === 'read_file')!);
    for (const autonomy of AUTONOMY_LEVELS) expect(decide([], read, { autonomy }).decision).toBe('allow');
  });
});

describe('autonomy dial × rules (POL-5)', () => {
  const cases: [Decision | 'none', AutonomyLevel, Decision, string][] = [
    ['allow', 'proposeOnly', 'deny', 'autonomy'],
    ['ask', 'proposeOnly', 'deny', 'autonomy'],
    ['deny', 'proposeOnly', 'deny', 'workspace'],
    ['allow', 'askFirst', 'ask', 'autonomy'],
    ['ask', 'askFirst', 'ask', 'workspace'],
    ['deny', 'askFirst', 'deny', 'workspace'],
    ['allow', 'actWithApproval', 'allow', 'workspace'],
    ['ask', 'actWithApproval', 'ask', 'workspace'],
    ['deny', 'actWithApproval', 'deny', 'workspace'],
    ['allow', 'actFreely', 'allow', 'workspace'],
    ['ask', 'actFreely', 'allow', 'autonomy'],
    ['deny', 'actFreely', 'deny', 'workspace'],
    ['none', 'actFreely', 'allow', 'autonomy'],
    ['none', 'actWithApproval', 'ask', 'default'],
  ];
  it.each(cases)('POL-5: rule %s under %s → %s (decided by %s)', (ruleDecision, autonomy, expected, scope) => {
    const rules = ruleDecision === 'none' ? [] : [rule('workspace', cls('gitPush'), ruleDecision), rule('workspace', cls('networkEgress'), 'allow')];
    const result = decide(rules, shell('git push'), { autonomy });
    expect(result.decision).toBe(expected);
    expect(result.decidedBy.scope).toBe(scope);
    if (scope === 'autonomy') expect(result.decidedBy.ruleId).toBe(`autonomy:${autonomy}`);
  });

  it('POL-5: a hard deny survives every dial setting, mode denies included', () => {
    for (const autonomy of AUTONOMY_LEVELS) {
      expect(decide([rule('space', cls('processSpawn'), 'deny')], shell('vitest run'), { autonomy }).decision).toBe('deny');
      expect(decide([], shell('rm x'), { autonomy, mode: 'plan' }).decidedBy.scope).toBe('mode');
    }
  });

  it('POL-5: askFirst asks for every call above read level and lists its classes', () => {
    const result = decide([], shell('vitest run'), { autonomy: 'askFirst' });
    expect(result).toMatchObject({ decision: 'ask', askedClasses: ['processSpawn'] });
  });
});

describe('pinned verbs (CAP-6)', () => {
  it('CAP-6: the output verb is allowed whatever the rules and the dial', () => {
    const submit = toolAction(SAMPLE_REGISTRY.find((tool) => tool.name === 'submit_plan')!);
    const hostile = [rule('space', cmd('submit_plan'), 'deny'), rule('workspace', cls('workspaceMutation'), 'deny')];
    for (const autonomy of AUTONOMY_LEVELS) {
      const result = decide(hostile, submit, { mode: 'plan', autonomy });
      expect(result).toMatchObject({ decision: 'allow', decidedBy: { scope: 'pinned', ruleId: 'pinned:plan:submit_plan' } });
    }
  });

  it('CAP-6: ask_user is pinned in every mode', () => {
    const ask = toolAction(SAMPLE_REGISTRY.find((tool) => tool.name === 'ask_user')!);
    expect(decide([], ask, { mode: 'review', autonomy: 'proposeOnly' }).decidedBy.scope).toBe('pinned');
  });

  it('a chokepoint may mark an action pinned explicitly', () => {
    expect(decide([], { classes: [], writesWorktree: false, tier: 'write', pinned: true }, { autonomy: 'proposeOnly' }).decision).toBe('allow');
  });
});

describe('fail closed (POL-4)', () => {
  it('POL-4: ask with no approver connected becomes deny, saying why', () => {
    const asked = decide([], shell('git push'));
    const closed = applyApproverAvailability(asked, false);
    expect(closed).toMatchObject({ decision: 'deny', failedClosed: true, deniedClasses: ['gitPush'], decidedBy: asked.decidedBy });
    expect(closed.reason).toMatch(/no approver is connected/);
    expect(applyApproverAvailability(asked, true)).toBe(asked);
  });

  it('POL-4: allow and deny pass through', () => {
    const allowed = decide([], shell('ls'));
    expect(applyApproverAvailability(allowed, false)).toBe(allowed);
    const denied = decide([rule('space', cls('gitPush'), 'deny')], shell('git push'));
    expect(applyApproverAvailability(denied, false)).toBe(denied);
  });
});

describe('remember this choice (POL-3)', () => {
  it('POL-3: fingerprints are stable across class order and whitespace and differ by command', () => {
    expect(fingerprintAction(['gitPush', 'networkEgress'], 'git push  origin')).toBe(fingerprintAction(['networkEgress', 'gitPush', 'gitPush'], ' git push origin'));
    expect(fingerprintAction(['gitPush'], 'git push origin')).not.toBe(fingerprintAction(['gitPush'], 'git push origin main'));
    expect(fingerprintAction(['gitPush'], 'x')).not.toBe(fingerprintAction(['fileDelete'], 'x'));
    expect(fingerprintAction([], 'x')).toMatch(/^fp_[0-9a-f]{32}$/);
  });

  it('POL-3: a remembered allow is a workspace rule that beats workspace class rules but not space rules', () => {
    const classification = classifyShellCommand('git push origin main');
    const fingerprint = fingerprintAction(classification.classes, classification.summary);
    const remembered = rememberChoiceRule({ workspaceId: 'ws_1', classes: classification.classes, summary: classification.summary, decision: 'allow' });
    expect(remembered).toMatchObject({ scope: 'workspace', scopeId: 'ws_1', match: { kind: 'fingerprint', fingerprint } });
    const action = shellAction(classification, 'bash', 'execute', fingerprint);
    expect(decide([rule('workspace', cls('gitPush'), 'ask'), remembered], action)).toMatchObject({ decision: 'allow', decidedBy: { scope: 'workspace', ruleId: remembered.id } });
    expect(decide([rule('space', cls('gitPush'), 'ask'), remembered], action).decision).toBe('ask');
    const other = classifyShellCommand('git push origin other');
    expect(decide([remembered], shellAction(other, 'bash', 'execute', fingerprintAction(other.classes, other.summary))).decision).toBe('ask');
  });
});

describe('rule store (POL-3)', () => {
  it('rejects invalid rules instead of dropping them (dropping a deny would fail open)', () => {
    expect(() => compilePolicy([{ id: 'x', scope: 'space', scopeId: 's', match: { kind: 'class', effectClass: 'rm' as EffectClass }, decision: 'deny' }])).toThrow(InvalidPolicyRuleError);
    expect(() => compilePolicy([{ id: 'x', scope: 'space', scopeId: 's', match: { kind: 'command', prefix: '  ' }, decision: 'deny' }])).toThrow(/empty command prefix/);
    expect(() => compilePolicy([{ id: 'x', scope: 'team' as RuleScope, scopeId: 's', match: cls('gitPush'), decision: 'deny' }])).toThrow(/scope/);
  });

  it('a context without a workspace id sees every workspace rule of the store', () => {
    const result = decideAction(compilePolicy([rule('workspace', cls('gitPush'), 'deny', 'w')]), shell('git push'), { mode: 'chat', autonomy: 'actWithApproval' });
    expect(result.decidedBy).toEqual({ scope: 'workspace', ruleId: 'w' });
  });
});
