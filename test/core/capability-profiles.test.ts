import { describe, expect, it } from 'vitest';
import {
  CAPABILITY_PROFILES,
  MODES,
  MODE_LABELS,
  WORLD_CHANGING_EFFECT_CLASSES,
  buildCapabilityPreamble,
  buildCompletionContract,
  buildGuardPreset,
  buildToolSurface,
  getCapabilityProfile,
  missingPinnedTools,
  validateToolRegistry,
  worktreeState,
} from '../../src/core/index.js';
import { SAMPLE_REGISTRY } from '../support/sample-registry.js';

const surfaceNames = (mode: (typeof MODES)[number]): string[] => buildToolSurface(getCapabilityProfile(mode), SAMPLE_REGISTRY).map((tool) => tool.name);

describe('capability profiles (CAP-1, CAP-3, CAP-4)', () => {
  it('MODE-1: exactly four modes, one profile each', () => {
    expect([...MODES]).toEqual(['chat', 'review', 'plan', 'orchestrate']);
    for (const mode of MODES) expect(CAPABILITY_PROFILES[mode].mode).toBe(mode);
  });

  it('MODE-3: chat is shown as "Agent"', () => {
    expect(MODE_LABELS.chat).toBe('Agent');
    expect(getCapabilityProfile('chat').label).toBe('Agent');
  });

  it('the sample registry itself is valid (POL-2)', () => {
    expect(validateToolRegistry(SAMPLE_REGISTRY)).toEqual([]);
  });

  it('CAP-3 chat: everything up to execute, nothing denied, writable, no contract', () => {
    const profile = getCapabilityProfile('chat');
    expect(surfaceNames('chat')).toEqual(SAMPLE_REGISTRY.map((tool) => tool.name).filter((name) => name !== 'exit_plan_mode'));
    expect(profile.surface.deniedEffects).toEqual([]);
    expect(profile.forbiddenEffects).toEqual([]);
    expect(worktreeState(profile)).toBe('writable');
    expect(profile.outputVerb).toBeNull();
    expect(buildCompletionContract(profile)).toBeNull();
  });

  it('CAP-3 plan / PLAN-1: read and research tools only, submit_plan pinned, read-only', () => {
    const names = surfaceNames('plan');
    expect(names).toEqual(['read_file', 'search_code', 'web_fetch', 'memory_search', 'ask_user', 'submit_plan', 'exit_plan_mode', 'read_secret']);
    expect(worktreeState(getCapabilityProfile('plan'))).toBe('readOnly');
    expect(getCapabilityProfile('plan').outputVerb).toBe('submit_plan');
  });

  it('CAP-3 review / REV-1: below execute, curated allowlist for write tools, read tools reach it (CAP-8), read-only', () => {
    const names = surfaceNames('review');
    expect(names).toEqual([
      'read_file',
      'search_code',
      'web_fetch',
      'memory_search',
      'ask_user',
      'add_review_node',
      'finalize_review',
      'create_ticket',
      'update_ticket',
      'comment_ticket',
      'send_message',
      'read_secret',
    ]);
    const profile = getCapabilityProfile('review');
    expect(profile.surface.maxTier).toBe('write');
    expect(profile.outputVerb).toBeNull();
    expect(profile.optionalVerbs).toEqual(['add_review_node', 'finalize_review']);
    expect(buildCompletionContract(profile)).toBeNull();
  });

  it('CAP-3 orchestrate / ORC-1: research surface plus propose_orchestration, read-only, contract', () => {
    expect(surfaceNames('orchestrate')).toEqual(['read_file', 'search_code', 'web_fetch', 'memory_search', 'ask_user', 'propose_orchestration', 'read_secret']);
    expect(buildCompletionContract(getCapabilityProfile('orchestrate'))?.outputVerb).toBe('propose_orchestration');
  });

  it('CAP-4: read-only modes forbid every world-changing class and keep networkEgress and secretAccess', () => {
    for (const mode of ['plan', 'review', 'orchestrate'] as const) {
      const profile = getCapabilityProfile(mode);
      expect([...profile.forbiddenEffects].sort()).toEqual([...WORLD_CHANGING_EFFECT_CLASSES].sort());
      expect(profile.forbiddenEffects).not.toContain('networkEgress');
      expect(profile.forbiddenEffects).not.toContain('secretAccess');
      const preset = buildGuardPreset(profile);
      expect(preset.denyWorktreeWrites).toBe(true);
      expect(preset.rules.map((rule) => rule.id)).toContain(`mode:${mode}:readOnlyWorktree`);
    }
    expect(buildGuardPreset(getCapabilityProfile('chat')).rules).toEqual([]);
  });

  it('CAP-6: ask_user is pinned in every mode; the output verbs in theirs', () => {
    for (const mode of MODES) expect(getCapabilityProfile(mode).pinnedTools).toContain('ask_user');
    expect(getCapabilityProfile('plan').pinnedTools).toContain('submit_plan');
    expect(getCapabilityProfile('orchestrate').pinnedTools).toContain('propose_orchestration');
  });

  it('CAP-6: a pinned verb survives a denylist, an allowlist and denied classes given as extra rules', () => {
    const surface = buildToolSurface(getCapabilityProfile('plan'), SAMPLE_REGISTRY, {
      allowlist: ['read_file'],
      denylist: ['submit_plan', 'ask_user', 'search_code'],
      deniedEffects: ['networkEgress'],
    });
    expect(surface.map((tool) => tool.name)).toEqual(['read_file', 'memory_search', 'ask_user', 'submit_plan', 'exit_plan_mode', 'read_secret']);
  });

  it('CAP-8: an extra allowlist limits write-level tools only', () => {
    const surface = buildToolSurface(getCapabilityProfile('chat'), SAMPLE_REGISTRY, { allowlist: ['write_file'] });
    expect(surface.filter((tool) => tool.tier !== 'read').map((tool) => tool.name)).toEqual(['write_file']);
    expect(surface.filter((tool) => tool.tier === 'read')).toHaveLength(SAMPLE_REGISTRY.filter((tool) => tool.tier === 'read' && tool.name !== 'exit_plan_mode').length);
  });

  it('PLAN-9: exit_plan_mode reaches plan mode only', () => {
    for (const mode of MODES) expect(surfaceNames(mode).includes('exit_plan_mode'), mode).toBe(mode === 'plan');
  });

  it('reports pinned verbs the registry lacks', () => {
    expect(missingPinnedTools(getCapabilityProfile('plan'), SAMPLE_REGISTRY)).toEqual([]);
    expect(missingPinnedTools(getCapabilityProfile('plan'), [])).toEqual(['submit_plan', 'ask_user']);
  });
});

describe('completion contract (HAR-4, PLAN-5, PLAN-6)', () => {
  it('PLAN-6: the plan failure line is exact', () => {
    expect(buildCompletionContract(getCapabilityProfile('plan'))?.failureLine).toBe('Ended without submitting a plan (no submit_plan call).');
  });

  it('HAR-4: the reminder names the verb and allows an honest "no plan needed" exit', () => {
    const contract = buildCompletionContract(getCapabilityProfile('plan'))!;
    expect(contract.outputVerb).toBe('submit_plan');
    expect(contract.reminder).toContain('`submit_plan`');
    expect(contract.reminder).toContain('no plan needed');
  });
});

describe('capability preamble (CAP-1e, CAP-7)', () => {
  const backticked = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

  it('CAP-7: names exactly the surfaced tools, and guidance names none', () => {
    for (const mode of MODES) {
      const profile = getCapabilityProfile(mode);
      const surface = buildToolSurface(profile, SAMPLE_REGISTRY);
      const preamble = buildCapabilityPreamble(profile, surface);
      expect(new Set(backticked(preamble))).toEqual(new Set(surface.map((tool) => tool.name)));
      expect(profile.guidance).not.toContain('`');
      for (const tool of SAMPLE_REGISTRY) expect(profile.guidance).not.toContain(tool.name);
      expect(preamble).toContain(profile.guidance);
    }
  });

  it('CAP-7: a missing output verb is never promised', () => {
    const profile = getCapabilityProfile('plan');
    const surface = buildToolSurface(profile, SAMPLE_REGISTRY.filter((tool) => tool.name !== 'submit_plan'));
    const preamble = buildCapabilityPreamble(profile, surface);
    expect(preamble).not.toContain('submit_plan');
    expect(preamble).toMatch(/deliverable tool is not available/);
  });

  it('CAP-7: a runner with only its own tools (the Grok CLI) is promised no product tool and asked for the deliverable as its answer', () => {
    const profile = getCapabilityProfile('plan');
    const preamble = buildCapabilityPreamble(profile, [], { runnerToolsOnly: true });
    expect(preamble).not.toContain('submit_plan');
    expect(preamble).not.toMatch(/No tools are available/);
    expect(preamble).toMatch(/offers no tools in this session; you have only your own file and shell tools/);
    expect(preamble).toMatch(/give the deliverable as your final answer instead/);
    expect(preamble).not.toMatch(/explain that you cannot deliver here and stop/);
  });

  it('says read-only for read-only modes', () => {
    const profile = getCapabilityProfile('review');
    expect(buildCapabilityPreamble(profile, [])).toMatch(/read-only/);
    expect(buildCapabilityPreamble(profile, [])).toMatch(/No tools are available/);
  });
});
