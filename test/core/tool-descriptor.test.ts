import { describe, expect, it } from 'vitest';
import { isMutatingTool, tierRank, validateToolDescriptor, validateToolRegistry, type ToolDescriptor } from '../../src/core/index.js';
import { callEffects } from '../../src/core/tool-descriptor.js';

const tool = (overrides: Partial<ToolDescriptor>): ToolDescriptor => ({
  name: 'some_tool',
  description: 'does something',
  tier: 'read',
  effects: [],
  writesWorktree: false,
  ...overrides,
});

describe('tool descriptors (POL-2, CAP-6)', () => {
  it('orders tiers read < write < execute; a tool mutates above read', () => {
    expect(tierRank('read')).toBeLessThan(tierRank('write'));
    expect(tierRank('write')).toBeLessThan(tierRank('execute'));
    expect(isMutatingTool({ tier: 'read' })).toBe(false);
    expect(isMutatingTool({ tier: 'write' })).toBe(true);
    expect(isMutatingTool({ tier: 'execute' })).toBe(true);
  });

  it('POL-2: a mutating tool that declares no effect class and no worktree write fails', () => {
    expect(validateToolDescriptor(tool({ tier: 'write' })).join()).toMatch(/must declare an effect class/);
    expect(validateToolDescriptor(tool({ tier: 'execute' })).join()).toMatch(/POL-2/);
  });

  it('POL-2: declaring a class, a worktree write or records-only satisfies the rule', () => {
    expect(validateToolDescriptor(tool({ tier: 'execute', effects: ['processSpawn'] }))).toEqual([]);
    expect(validateToolDescriptor(tool({ tier: 'write', writesWorktree: true }))).toEqual([]);
    expect(validateToolDescriptor(tool({ tier: 'write', recordsOnly: true }))).toEqual([]);
    expect(validateToolDescriptor(tool({ tier: 'read' }))).toEqual([]);
  });

  it('rejects unknown classes, tiers and contradictions', () => {
    expect(validateToolDescriptor(tool({ effects: ['rmRf' as never] })).join()).toMatch(/not an effect class/);
    expect(validateToolDescriptor(tool({ tier: 'admin' as never })).join()).toMatch(/tier/);
    expect(validateToolDescriptor(tool({ tier: 'write', recordsOnly: true, writesWorktree: true })).join()).toMatch(/contradicts/);
    expect(validateToolDescriptor(tool({ name: 'bad name' })).join()).toMatch(/identifier/);
  });

  it('CAP-6: a registry whose pinned verb writes the world is rejected; duplicates are rejected', () => {
    const badPinned = tool({ name: 'submit_plan', tier: 'write', writesWorktree: true });
    expect(validateToolRegistry([badPinned]).join()).toMatch(/pinned verb must not write the worktree/);
    const pushyPinned = tool({ name: 'ask_user', tier: 'write', effects: ['gitPush'] });
    expect(validateToolRegistry([pushyPinned]).join()).toMatch(/gitPush/);
    expect(validateToolRegistry([tool({}), tool({})]).join()).toMatch(/registered twice/);
    expect(validateToolRegistry([tool({ name: 'submit_plan', tier: 'write', recordsOnly: true })])).toEqual([]);
  });
});

describe('per-action effects and started runs (SEC-9)', () => {
  const relayLike = tool({ tier: 'write', effectsByAction: { field: 'action', classes: { list: [], send: ['workspaceMutation'] } }, startsRuns: true });

  it('a call gets the static classes plus those its action picks; an unnamed or missing action only the static ones', () => {
    expect(callEffects(relayLike, { action: 'send' })).toEqual(['workspaceMutation']);
    expect(callEffects(relayLike, { action: 'list' })).toEqual([]);
    expect(callEffects(relayLike, { action: 'toString' })).toEqual([]);
    expect(callEffects(relayLike, null)).toEqual([]);
    expect(callEffects({ ...relayLike, effects: ['networkEgress'] }, { action: 'send' })).toEqual(['networkEgress', 'workspaceMutation']);
  });

  it('a per-action class counts as a declaration; an unknown one is refused', () => {
    expect(validateToolDescriptor(relayLike)).toEqual([]);
    expect(validateToolDescriptor(tool({ tier: 'write', effectsByAction: { field: 'action', classes: { send: ['teleport' as never] } } })).join()).toMatch(/"teleport" of action send is not an effect class/);
  });

  it('a write-tier tool that starts runs must name classes: records-only is not enough', () => {
    expect(validateToolDescriptor(tool({ tier: 'write', recordsOnly: true, startsRuns: true })).join()).toMatch(/starts runs must declare the classes/);
    expect(validateToolDescriptor(tool({ tier: 'read', startsRuns: true }))).toEqual([]);
  });
});
