import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schemas/agent.js';
import { planModeTools } from '../../src/services/plans/plan-mode-tools.js';
import { reviewModeTools } from '../../src/services/reviews/review-mode-tools.js';
import type { ModeToolContext, ModeToolProvider } from '../../src/services/runs/run-executor.js';
import { skillModeTools } from '../../src/services/skills/skill-mode-tools.js';
import type { Tool } from '../../src/tools/define-tool.js';
import { builtinTools, toModelTool } from '../../src/tools/builtin-tools.js';

/**
 * the cost of a turn: a tool's JSON schema is converted once per zod schema object, so a
 * tool whose schema were built inside its provider would be converted again on every run. Each run
 * here asks the providers for their tools anew, as the prepare stage does; the services behind the
 * tools are never called (only the definitions are looked at), hence the empty stand-ins.
 */
const unused = {} as never;
const providers: Record<string, ModeToolProvider> = {
  plan: planModeTools({ workspaces: unused, plans: unused, approvals: unused, spaces: unused, agents: unused, settings: unused, executor: () => unused }),
  review: reviewModeTools({ reviews: unused, tickets: unused, messages: unused }),
  skill: skillModeTools(unused),
};

function runTools(runId: string, mode: ModeToolContext['mode']): Tool[] {
  const agent = { id: 'ag_1', name: 'dev', skills: ['code-review'] } as unknown as Agent;
  const context: ModeToolContext = { workspaceId: 'ws_1', runId, agent, spaceId: 'sp_1', conversationId: 'cv_1', treeConversationId: 'cv_1', mode };
  return [...builtinTools(), ...Object.values(providers).flatMap((provider) => provider(context))];
}

describe('tool schemas are built once, not per run', () => {
  it.each(['plan', 'review'] as const)('%s mode: two runs get the very same input schema object for every tool', (mode) => {
    const first = runTools('run_1', mode);
    const second = runTools('run_2', mode);
    expect(first.map((tool) => tool.name)).toEqual(second.map((tool) => tool.name));
    // Every provider contributes in its mode (the skill tool for an agent with skills).
    expect(first.map((tool) => tool.name)).toContain('skill');
    expect(first.length).toBeGreaterThan(builtinTools().length + 1);
    first.forEach((tool, index) => {
      const again = second[index]!;
      expect(again.parameters, tool.name).toBe(tool.parameters);
      expect(toModelTool(again).inputSchema, tool.name).toBe(toModelTool(tool).inputSchema);
    });
  });

  it('the cached JSON schema is still the schema of the input (a required field stays required)', () => {
    const skill = runTools('run_3', 'plan').find((tool) => tool.name === 'skill')!;
    expect(toModelTool(skill).inputSchema).toMatchObject({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 64 } } });
  });
});
