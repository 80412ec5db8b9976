import { describe, expect, it } from 'vitest';
import { unknownAgentIssues } from '../../src/core/pipelines/unknown-agents.js';
import { validatePipelineDefinition } from '../../src/core/pipelines/validate-pipeline.js';
import { problemPlace, problemWords } from '../../web/src/pipelines/pipeline-problems.js';

/** Definitions that provoke every finding the editor can get back from the validator. */
const BAD: unknown[] = [
  { name: '', nodes: [{ key: 'Bad Key', type: 'promptAgent' }, { key: 'x', type: 'team.dispatch', teamId: 't', strategy: 'roundRobin', prompt: 'p', retries: { max: 99, backoffMs: 0 } }], extra: true },
  { name: 'n', nodes: [{ key: 'a', type: 'condition', expression: 'true' }, { key: 'a', type: 'condition', expression: 'true' }] },
  { name: 'n', nodes: [{ key: 'a', type: 'condition', expression: 'true', outputKey: 'b' }, { key: 'b', type: 'condition', expression: 'true' }] },
  { name: 'n', nodes: [{ key: 'trigger', type: 'condition', expression: 'true' }] },
  { name: 'n', nodes: [{ key: 'a', type: 'condition', expression: 'true', dependsOn: ['ghost', 'a'] }] },
  { name: 'n', nodes: [{ key: 'a', type: 'condition', expression: 'true', dependsOn: ['b'] }, { key: 'b', type: 'condition', expression: 'true', dependsOn: ['a'] }] },
  { name: 'n', nodes: [{ key: 'a', type: 'human.gate', prompt: '{{b}} {{nothing}}' }, { key: 'b', type: 'condition', expression: 'true' }] },
  { name: 'n', nodes: [{ key: 'a', type: 'promptAgent', agentId: 'agt_x', prompt: 'p', spaceFrom: 'b' }, { key: 'b', type: 'condition', expression: '== ==' }] },
  { name: 'n', triggers: [{ type: 'schedule', cron: '61 * * * *' }, { type: 'schedule', cron: 'every day' }], nodes: [{ key: 'a', type: 'condition', expression: 'true', outputSchema: { type: 'object', patternProperties: {} } }] },
  { name: 'n', nodes: [{ key: 'room', type: 'messaging.createSpace', name: 'r', extras: { mode: 'orchestrate', conversationMode: 'chat' } }] },
];

/** A camelCase word (`dependsOn`, `promptAgent`), a definition path, a code or a node type as written. */
const INTERNAL = /\b[a-z]+[A-Z][A-Za-z]*\b|\bnodes\.\d|\btriggers\.\d|\b[a-z]+_[a-z_]+\b|messaging\.createSpace|human\.gate/;

describe('the pipeline editor words every validator finding plainly (PIPE-1, UI)', () => {
  it('no finding reaches the screen with an internal name, a path or a code', () => {
    const findings = BAD.flatMap((definition) => {
      const result = validatePipelineDefinition(definition);
      return [...result.errors, ...result.warnings, ...unknownAgentIssues(definition, new Set())];
    });
    const codes = new Set(findings.map((finding) => finding.code));
    expect([...codes].sort()).toEqual(
      ['bad_cron', 'bad_expression', 'bad_output_schema', 'cycle', 'duplicate_key', 'duplicate_output_key', 'mode_ignored', 'placeholder_not_upstream', 'reserved_key', 'schema', 'self_dependency', 'space_from_not_upstream', 'unknown_agent', 'unknown_dependency'].sort(),
    );
    for (const finding of findings) {
      // As the save and validate routes send it: the node's key first.
      const words = problemWords({ field: finding.field, code: finding.code, message: finding.nodeKey ? `node ${finding.nodeKey}: ${finding.message}` : finding.message });
      expect({ code: finding.code, message: finding.message, words }).toEqual({ code: finding.code, message: finding.message, words: expect.not.stringMatching(INTERNAL) });
      expect(words).toMatch(/[.?!]$/);
    }
  });

  it('says where a finding is in the words of the form', () => {
    expect(problemPlace('nodes.1.dependsOn.0', ['research', 'ship'])).toBe('Step “ship” · Depends on');
    expect(problemPlace('nodes.4.prompt', ['research'])).toBe('Step 5 · Prompt');
    expect(problemPlace('triggers.0.cron', [])).toBe('Trigger 1');
    expect(problemPlace('', [])).toBe('Pipeline');
  });
});
