import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveSpaceMode, validatePipelineDefinition, validatePipelineSource } from '../../../src/core/pipelines/index.js';

const gate = (key: string, dependsOn: string[] = [], prompt = 'Approve?') => ({ key, type: 'human.gate', prompt, dependsOn });

describe('validatePipelineDefinition (PIPE-1)', () => {
  it('accepts a valid graph and fills defaults', () => {
    const result = validatePipelineDefinition({ name: 'ok', nodes: [gate('a'), gate('b', ['a'], 'Saw {{a.decision}}')] });
    expect(result.errors).toEqual([]);
    expect(result.definition?.nodes[1]).toMatchObject({ key: 'b', continueOnFail: false, idempotent: false, dependsOn: ['a'] });
    expect(result.definition?.triggers).toEqual([{ type: 'manual' }]);
  });

  it('reports every error at once, each with its node', () => {
    const result = validatePipelineDefinition({
      name: 'bad',
      nodes: [
        gate('a', ['ghost']),
        gate('a'),
        gate('b', ['c']),
        gate('c', ['b']),
        gate('d', ['d']),
        gate('e', [], 'uses {{a.x}} without depending on it'),
        { key: 'f', type: 'condition', expression: '{{a}} == == 1', dependsOn: ['a'] },
        { key: 'g', type: 'promptAgent' },
      ],
      triggers: [{ type: 'schedule', cron: '61 * * * *' }],
    });
    const byCode = result.errors.map((issue) => [issue.code, issue.nodeKey ?? null]);
    expect(byCode).toEqual(
      expect.arrayContaining([
        ['unknown_dependency', 'a'],
        ['duplicate_key', 'a'],
        ['cycle', 'b'],
        ['cycle', 'c'],
        ['self_dependency', 'd'],
        ['placeholder_not_upstream', 'e'],
        ['bad_expression', 'f'],
        ['schema', 'g'],
        ['bad_cron', null],
      ]),
    );
    expect(result.definition).toBeNull();
    const placeholder = result.errors.find((issue) => issue.code === 'placeholder_not_upstream')!;
    expect(placeholder.field).toBe('nodes.5.prompt');
    expect(placeholder.message).toContain('{{a.x}}');
  });

  it('placeholders may name output keys and the trigger payload, never a downstream node', () => {
    const ok = validatePipelineDefinition({
      name: 'outputs',
      nodes: [{ ...gate('a'), outputKey: 'approval' }, gate('b', ['a'], '{{approval.decision}} {{trigger.body}}')],
    });
    expect(ok.errors).toEqual([]);
    const downstream = validatePipelineDefinition({ name: 'x', nodes: [gate('a', [], '{{b}}'), gate('b', ['a'])] });
    expect(downstream.errors.map((issue) => [issue.code, issue.nodeKey])).toEqual([['placeholder_not_upstream', 'a']]);
    const reserved = validatePipelineDefinition({ name: 'x', nodes: [gate('trigger')] });
    expect(reserved.errors[0]).toMatchObject({ code: 'reserved_key', nodeKey: 'trigger' });
  });

  it('refuses a promptAgent whose spaceFrom is not an upstream createSpace node, and malformed output schemas', () => {
    const result = validatePipelineDefinition({
      name: 'x',
      nodes: [gate('g'), { key: 'p', type: 'promptAgent', agentId: 'agt_1', prompt: 'hi', spaceFrom: 'g', dependsOn: ['g'], outputSchema: { type: 'object', oneOf: [] } }],
    });
    expect(result.errors.map((issue) => [issue.code, issue.nodeKey])).toEqual([
      ['bad_output_schema', 'p'],
      ['space_from_not_upstream', 'p'],
    ]);
  });

  it("MODE-5: extras.mode spellings other than exactly chat|review|plan warn and default to review", () => {
    const space = (extras: Record<string, unknown>) => ({ key: 's', type: 'messaging.createSpace', name: 'Room', extras });
    for (const mode of ['chat', 'review', 'plan']) {
      const result = validatePipelineDefinition({ name: 'x', nodes: [space({ mode })] });
      expect(result.warnings).toEqual([]);
      expect(effectiveSpaceMode({ mode })).toBe(mode);
    }
    for (const extras of [{ mode: 'orchestrate' }, { mode: 'Chat' }, { mode: ' plan' }, { mode: 1 }, { conversationMode: 'chat' }, { dispatchMode: 'plan' }, { Mode: 'chat' }]) {
      const result = validatePipelineDefinition({ name: 'x', nodes: [space(extras)] });
      expect(result.errors).toEqual([]);
      expect(result.definition).not.toBeNull();
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toMatchObject({ code: 'mode_ignored', nodeKey: 's', severity: 'warning' });
      expect(effectiveSpaceMode(extras)).toBe('review');
    }
    expect(effectiveSpaceMode({})).toBe('review');
  });

  it('reads JSON and YAML files the same way, and reports syntax errors', () => {
    const yaml = ['name: from-yaml', 'nodes:', '  - key: a', '    type: human.gate', '    prompt: ok?', '  - key: b', '    type: human.gate', '    prompt: "{{a}}"', '    dependsOn: [zz]'].join('\n');
    const fromYaml = validatePipelineSource(yaml, 'yaml');
    expect(fromYaml.errors.map((issue) => [issue.code, issue.nodeKey])).toEqual([
      ['unknown_dependency', 'b'],
      ['placeholder_not_upstream', 'b'],
    ]);
    const json = JSON.stringify({ name: 'from-json', nodes: [gate('a')] });
    expect(validatePipelineSource(json, 'json').definition?.name).toBe('from-json');
    expect(validatePipelineSource('{"name":', 'json').errors[0]).toMatchObject({ code: 'parse' });
    expect(validatePipelineSource('a: [', 'yaml').errors[0]).toMatchObject({ code: 'parse' });
  });

  it('validates a 10,000-node chain without recursion limits', () => {
    const nodes = Array.from({ length: 10_000 }, (_, index) => ({ key: `n${index}`, type: 'condition', expression: 'true', dependsOn: index === 0 ? [] : [`n${index - 1}`] }));
    expect(validatePipelineDefinition({ name: 'long', nodes }).errors).toEqual([]);
    nodes[0]!.dependsOn = ['n9999'];
    expect(validatePipelineDefinition({ name: 'long', nodes }).errors.filter((issue) => issue.code === 'cycle')).toHaveLength(10_000);
  });
});

describe('validator properties', () => {
  const dag = fc.integer({ min: 1, max: 25 }).chain((size) =>
    fc.tuple(...Array.from({ length: size }, (_, index) => fc.subarray(Array.from({ length: index }, (__, earlier) => `n${earlier}`)))).map((deps) =>
      deps.map((dependsOn, index) => ({ key: `n${index}`, type: 'condition', expression: 'true', dependsOn })),
    ),
  );

  it('every DAG with earlier-only edges is valid, in any node order', () => {
    fc.assert(
      fc.property(dag, fc.integer(), (nodes, seed) => {
        const shuffled = [...nodes].sort((a, b) => ((a.key.length * 31 + seed) % 7) - ((b.key.length * 31 + seed) % 7));
        expect(validatePipelineDefinition({ name: 'p', nodes: shuffled }).errors).toEqual([]);
      }),
    );
  });

  it('adding a back edge makes every node on the cycle an error naming that node', () => {
    fc.assert(
      fc.property(dag.filter((nodes) => nodes.length >= 2), (nodes) => {
        const last = nodes.at(-1)!;
        const copy = nodes.map((node) => ({ ...node, dependsOn: [...node.dependsOn] }));
        copy.at(-1)!.dependsOn = [...new Set([...last.dependsOn, 'n0'])];
        copy[0]!.dependsOn.push(last.key);
        const result = validatePipelineDefinition({ name: 'p', nodes: copy });
        const cyclic = new Set(result.errors.filter((issue) => issue.code === 'cycle').map((issue) => issue.nodeKey));
        expect(cyclic.has('n0')).toBe(true);
        expect(cyclic.has(last.key)).toBe(true);
        expect(result.definition).toBeNull();
      }),
    );
  });

  it('a dependency on a missing key is reported on exactly the nodes that name it', () => {
    fc.assert(
      fc.property(dag, fc.array(fc.nat(), { maxLength: 5 }), (nodes, picks) => {
        const targets = new Set(picks.map((pick) => nodes[pick % nodes.length]!.key));
        const copy = nodes.map((node) => ({ ...node, dependsOn: targets.has(node.key) ? [...node.dependsOn, 'missing'] : node.dependsOn }));
        const unknown = validatePipelineDefinition({ name: 'p', nodes: copy }).errors.filter((issue) => issue.code === 'unknown_dependency');
        expect(new Set(unknown.map((issue) => issue.nodeKey))).toEqual(targets);
      }),
    );
  });

  it('any string as extras.mode either pins exactly that mode or warns and uses review', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('chat', 'review', 'plan', 'CHAT', 'orchestrate')), (mode) => {
        const result = validatePipelineDefinition({ name: 'p', nodes: [{ key: 's', type: 'messaging.createSpace', name: 'r', extras: { mode } }] });
        const exact = ['chat', 'review', 'plan'].includes(mode);
        expect(effectiveSpaceMode({ mode })).toBe(exact ? mode : 'review');
        expect(result.warnings.length).toBe(exact ? 0 : 1);
      }),
    );
  });
});
