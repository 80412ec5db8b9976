import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALL_PINNED_TOOLS,
  AUTONOMY_LEVELS,
  EFFECT_CLASSES,
  MODES,
  REVIEW_ALLOWLIST,
  TOOL_TIERS,
  WORLD_CHANGING_EFFECT_CLASSES,
  buildCapabilityPreamble,
  buildToolSurface,
  compilePolicy,
  decideAction,
  getCapabilityProfile,
  isMutatingTool,
  toolAction,
  validateToolRegistry,
  type EffectClass,
  type PolicyAction,
  type PolicyContext,
  type PolicyRule,
  type SurfaceRules,
  type ToolDescriptor,
} from '../../src/core/index.js';
import { SAMPLE_REGISTRY } from '../support/sample-registry.js';

const NAMES = [...new Set([...SAMPLE_REGISTRY.map((tool) => tool.name), ...REVIEW_ALLOWLIST, ...ALL_PINNED_TOOLS, 'tool_a', 'tool_b', 'tool_c', 'mcp__x__y'])];
const WORLD_CHANGING = new Set<EffectClass>(WORLD_CHANGING_EFFECT_CLASSES);
const PINNED = new Set(ALL_PINNED_TOOLS);

/** Random descriptors, repaired into a valid registry (POL-2, CAP-6) so every property runs on a realistic input. */
const toolArb: fc.Arbitrary<ToolDescriptor> = fc
  .record({
    name: fc.constantFrom(...NAMES),
    tier: fc.constantFrom(...TOOL_TIERS),
    effects: fc.subarray([...EFFECT_CLASSES], { maxLength: 3 }),
    writesWorktree: fc.boolean(),
  })
  .map(({ name, tier, effects, writesWorktree }) => {
    const pinned = PINNED.has(name);
    const safeEffects = pinned ? effects.filter((effect) => !WORLD_CHANGING.has(effect)) : effects;
    const writes = pinned ? false : writesWorktree;
    const needsDeclaration = tier !== 'read' && safeEffects.length === 0 && !writes;
    return { name, description: `${name} tool`, tier, effects: safeEffects, writesWorktree: writes, ...(needsDeclaration ? { recordsOnly: true } : {}) };
  });

const registryArb = fc.uniqueArray(toolArb, { selector: (tool) => tool.name, maxLength: 24 });

const extraArb: fc.Arbitrary<SurfaceRules> = fc.record(
  {
    allowlist: fc.subarray(NAMES, { maxLength: 8 }),
    denylist: fc.subarray(NAMES, { maxLength: 4 }),
    deniedEffects: fc.subarray([...EFFECT_CLASSES], { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const ruleArb: fc.Arbitrary<PolicyRule> = fc
  .record({
    scope: fc.constantFrom('space' as const, 'agent' as const, 'workspace' as const),
    matchesContext: fc.boolean(),
    match: fc.oneof(
      fc.constantFrom(...EFFECT_CLASSES).map((effectClass) => ({ kind: 'class' as const, effectClass })),
      fc.constantFrom(...NAMES, 'git push', 'rm', 'git').map((prefix) => ({ kind: 'command' as const, prefix })),
      fc.constant({ kind: 'fingerprint' as const, fingerprint: 'fp_fixed' }),
    ),
    decision: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const),
  })
  .map(({ scope, matchesContext, match, decision }) => ({
    id: `rule-${scope}-${decision}-${JSON.stringify(match)}`,
    scope,
    scopeId: matchesContext ? { space: 'sp_1', agent: 'ag_1', workspace: 'ws_1' }[scope] : 'elsewhere',
    match,
    decision,
  }));

const rulesArb = fc.array(ruleArb, { maxLength: 30 }).map((rules) => rules.map((rule, index) => ({ ...rule, id: `${rule.id}-${index}` })));

const contextArb: fc.Arbitrary<PolicyContext> = fc.record({
  mode: fc.constantFrom(...MODES),
  autonomy: fc.constantFrom(...AUTONOMY_LEVELS),
  workspaceId: fc.constant('ws_1'),
  spaceId: fc.constant('sp_1'),
  agentId: fc.constant('ag_1'),
});

/** Random actions: a tool call, or a shell-like command with subcommands. */
const actionArb: fc.Arbitrary<PolicyAction> = fc.oneof(
  toolArb.map((tool) => toolAction(tool)),
  fc
    .array(
      fc.record({
        argv: fc.constantFrom(['git', 'push', 'origin'], ['rm', '-rf', 'x'], ['ls'], ['submit_plan'], ['git', 'status'], ['make']),
        classes: fc.subarray([...EFFECT_CLASSES], { maxLength: 3 }),
        writesWorktree: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    )
    .chain((subcommands) =>
      fc.record({
        classes: fc.constant([...new Set(subcommands.flatMap((subcommand) => subcommand.classes))]),
        writesWorktree: fc.constant(subcommands.some((subcommand) => subcommand.writesWorktree)),
        tier: fc.constantFrom(...TOOL_TIERS),
        commandSubcommands: fc.constant(subcommands),
        toolName: fc.constant('bash'),
        fingerprint: fc.constantFrom(undefined, 'fp_fixed'),
      }),
    ),
);

const RUNS = { numRuns: 300 };
const backticked = (text: string): Set<string> => new Set([...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));

describe('capability properties over random registries (CAP-2)', () => {
  it('the generated registries are valid (POL-2, CAP-6)', () => {
    fc.assert(
      fc.property(registryArb, (registry) => {
        expect(validateToolRegistry(registry)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('CAP-7: for every mode × registry × extra rules, the tools the preamble names == the surfaced tools', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODES), registryArb, extraArb, (mode, registry, extra) => {
        const profile = getCapabilityProfile(mode);
        const surface = buildToolSurface(profile, registry, extra);
        expect(backticked(buildCapabilityPreamble(profile, surface))).toEqual(new Set(surface.map((tool) => tool.name)));
      }),
      RUNS,
    );
  });

  it('CAP-1a: no surfaced tool carries a denied class; CAP-8: allowlists never remove read tools', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODES), registryArb, extraArb, (mode, registry, extra) => {
        const profile = getCapabilityProfile(mode);
        const surface = buildToolSurface(profile, registry, extra);
        const profileDenied = new Set(profile.surface.deniedEffects);
        const extraDenied = new Set(extra.deniedEffects ?? []);
        for (const tool of surface) {
          expect(tool.effects.some((effect) => profileDenied.has(effect)), tool.name).toBe(false);
          if (!profile.pinnedTools.includes(tool.name)) {
            expect(tool.effects.some((effect) => extraDenied.has(effect)), tool.name).toBe(false);
            expect((extra.denylist ?? []).includes(tool.name)).toBe(false);
          }
        }
        const surfacedNames = new Set(surface.map((tool) => tool.name));
        for (const tool of registry) {
          const unaffected =
            tool.tier === 'read' &&
            !tool.effects.some((effect) => profileDenied.has(effect) || extraDenied.has(effect)) &&
            !(extra.denylist ?? []).includes(tool.name) &&
            !profile.surface.denylist.includes(tool.name) &&
            !(profile.worktree === 'readOnly' && tool.writesWorktree);
          if (unaffected) expect(surfacedNames.has(tool.name), tool.name).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('CAP-5: read-only ⇔ no worktree mutator surfaced', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODES), registryArb, (mode, registry) => {
        const profile = getCapabilityProfile(mode);
        const surface = buildToolSurface(profile, registry);
        if (profile.worktree === 'readOnly') {
          expect(surface.filter((tool) => tool.writesWorktree)).toEqual([]);
        } else {
          // The writable mode (chat) hides no worktree mutator (its denylist only names plan mode's exit gate).
          const denied = new Set(profile.surface.denylist);
          expect(surface.filter((tool) => tool.writesWorktree)).toEqual(registry.filter((tool) => tool.writesWorktree && !denied.has(tool.name)));
        }
      }),
      RUNS,
    );
  });

  it('CAP-6: pinned verbs are surfaced and pre-approved whatever the rules, extras and dial', () => {
    fc.assert(
      fc.property(registryArb, extraArb, rulesArb, contextArb, (registry, extra, rules, context) => {
        const profile = getCapabilityProfile(context.mode);
        const surface = buildToolSurface(profile, registry, extra);
        const policy = compilePolicy(rules);
        for (const name of profile.pinnedTools) {
          const tool = registry.find((candidate) => candidate.name === name);
          if (!tool) continue;
          expect(surface).toContain(tool);
          const decision = decideAction(policy, toolAction(tool, 'fp_fixed'), context);
          expect(decision.decision).toBe('allow');
          expect(decision.decidedBy.scope).toBe('pinned');
        }
      }),
      RUNS,
    );
  });

  it('CAP-2: the action guard never denies, by mode, a tool the surface shows', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODES), registryArb, fc.constantFrom(...AUTONOMY_LEVELS), (mode, registry, autonomy) => {
        const profile = getCapabilityProfile(mode);
        const policy = compilePolicy([]);
        for (const tool of buildToolSurface(profile, registry)) {
          expect(decideAction(policy, toolAction(tool), { mode, autonomy }).decidedBy.scope, tool.name).not.toBe('mode');
        }
      }),
      RUNS,
    );
  });

  it('CAP-2: every registry tool the surface hides for a forbidden class or read-only worktree is denied by the guard', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODES), registryArb, (mode, registry) => {
        const profile = getCapabilityProfile(mode);
        const policy = compilePolicy([]);
        for (const tool of registry) {
          if (profile.pinnedTools.includes(tool.name)) continue;
          const forbidden = tool.effects.some((effect) => profile.forbiddenEffects.includes(effect)) || (profile.worktree === 'readOnly' && tool.writesWorktree);
          if (forbidden) expect(decideAction(policy, toolAction(tool), { mode, autonomy: 'actFreely' }).decidedBy.scope).toBe('mode');
        }
      }),
      RUNS,
    );
  });
});

describe('policy properties over random rule stores (POL-3, POL-5)', () => {
  it('POL-5: a deny survives every dial setting; actFreely never asks; askFirst never allows above read; proposeOnly denies above read', () => {
    fc.assert(
      fc.property(rulesArb, actionArb, contextArb, (rules, action, context) => {
        const policy = compilePolicy(rules);
        const at = (autonomy: (typeof AUTONOMY_LEVELS)[number]) => decideAction(policy, action, { ...context, autonomy });
        const base = at('actWithApproval');
        if (base.decision === 'deny') {
          for (const autonomy of AUTONOMY_LEVELS) expect(at(autonomy).decision).toBe('deny');
        }
        expect(at('actFreely').decision).not.toBe('ask');
        if (base.decidedBy.scope !== 'pinned' && isMutatingTool(action)) {
          expect(at('askFirst').decision).not.toBe('allow');
          expect(at('proposeOnly').decision).toBe('deny');
        }
      }),
      RUNS,
    );
  });

  it('POL-3: decisions carry a valid decidedBy, only list classes of the action, and re-resolve identically (no latch)', () => {
    const ruleIds = (rules: readonly PolicyRule[]) => new Set(rules.map((rule) => rule.id));
    fc.assert(
      fc.property(rulesArb, actionArb, contextArb, (rules, action, context) => {
        const policy = compilePolicy(rules);
        const decision = decideAction(policy, action, context);
        expect(['space', 'agent', 'workspace', 'mode', 'default', 'autonomy', 'pinned']).toContain(decision.decidedBy.scope);
        if (['space', 'agent', 'workspace'].includes(decision.decidedBy.scope)) expect(ruleIds(rules).has(decision.decidedBy.ruleId!)).toBe(true);
        if (decision.decidedBy.scope === 'default') expect(decision.decidedBy.ruleId).toBeNull();
        for (const effectClass of [...decision.askedClasses, ...decision.deniedClasses]) expect(action.classes).toContain(effectClass);
        if (decision.decision !== 'ask') expect(decision.askedClasses).toEqual([]);
        expect(decideAction(policy, action, context)).toEqual(decision);
      }),
      RUNS,
    );
  });

  it('POL-3: adding a deny rule at the most specific scope for a class the action carries never loosens the answer', () => {
    fc.assert(
      fc.property(rulesArb, actionArb, contextArb, (rules, action, context) => {
        if (action.classes.length === 0) return;
        const before = decideAction(compilePolicy(rules), action, context);
        const stricter = compilePolicy([...rules, { id: 'extra-deny', scope: 'space', scopeId: 'sp_1', match: { kind: 'class', effectClass: action.classes[0]! }, decision: 'deny' }]);
        const after = decideAction(stricter, action, context);
        const severity = { allow: 0, ask: 1, deny: 2 } as const;
        if (before.decidedBy.scope !== 'pinned' && !(action.tier === 'read' && action.classes.length === 0)) {
          expect(severity[after.decision]).toBeGreaterThanOrEqual(severity[before.decision]);
        }
      }),
      RUNS,
    );
  });
});
