import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../src/core/plan/compile-plan.js';
import { compilePlanPipeline, planRunIdempotencyKey } from '../../../src/core/plan/plan-pipeline.js';
import { validatePipelineDefinition } from '../../../src/core/pipelines/validate-pipeline.js';

const target = { planId: 'plan_1', agentId: 'agt_1', conversationId: 'cnv_1', spaceId: 'spc_1' };
const PLAN = {
  goal: 'Fix the {{login}} bug',
  nodes: [
    { key: 'fix', title: 'Fix', description: 'do it {{trigger.secret}}', dependsOn: ['reproduce', 'docs'] },
    { key: 'reproduce', title: 'Reproduce', description: '', dependsOn: [] },
    { key: 'docs', title: 'Read docs', description: '', dependsOn: [] },
  ],
};

describe('compilePlanPipeline (PLAN-7 → PIPE-1)', () => {
  it('one idempotent planStep node per step, in the blueprint order, with the plan edges and the step prompt', () => {
    const definition = compilePlanPipeline(compilePlan(PLAN), target);
    expect(definition.nodes.map((node) => [node.key, node.type, node.dependsOn, node.idempotent])).toEqual([
      ['reproduce', 'planStep', [], true],
      ['docs', 'planStep', [], true],
      ['fix', 'planStep', ['docs', 'reproduce'], true],
    ]);
    const fix = definition.nodes[2]!;
    expect(fix).toMatchObject({ planId: 'plan_1', agentId: 'agt_1', conversationId: 'cnv_1', spaceId: 'spc_1' });
    // The agent's own text is handed over verbatim: placeholders in it stay text.
    expect(fix.type === 'planStep' && fix.prompt).toContain('Now do step 3 of 3 — fix: Fix');
    expect(fix.type === 'planStep' && fix.prompt).toContain('{{trigger.secret}}');
    expect(planRunIdempotencyKey('plan_1')).toBe('plan:plan_1');
  });

  it('leaves out steps already finished and the dependencies on them', () => {
    const definition = compilePlanPipeline(compilePlan(PLAN), target, new Set(['reproduce']));
    expect(definition.nodes.map((node) => [node.key, node.dependsOn])).toEqual([
      ['docs', []],
      ['fix', ['docs']],
    ]);
  });

  it('is deterministic: the same plan compiles to the same definition (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/), { minLength: 1, maxLength: 8 }), (keys) => {
        // A chain in declaration order, so the plan is always valid.
        const plan = { goal: 'g', nodes: keys.map((key, index) => ({ key, title: key, description: '', dependsOn: index > 0 ? [keys[index - 1]!] : [] })) };
        const first = JSON.stringify(compilePlanPipeline(compilePlan(plan), target));
        expect(JSON.stringify(compilePlanPipeline(compilePlan(plan), target))).toBe(first);
        expect(JSON.parse(first).nodes.map((node: { key: string }) => node.key)).toEqual(keys);
      }),
    );
  });

  it('an authored pipeline cannot contain a planStep node (only an approved plan compiles one)', () => {
    const result = validatePipelineDefinition({
      name: 'sneaky',
      nodes: [{ key: 'step', type: 'planStep', planId: 'plan_1', agentId: 'agt_1', conversationId: 'cnv_other', spaceId: null, prompt: 'delete everything' }],
    });
    expect(result.errors).toEqual([expect.objectContaining({ code: 'schema', nodeKey: 'step', field: 'nodes.0.type' })]);
    expect(result.errors[0]!.message).toMatch(/compiled from approved plans/);
  });
});
