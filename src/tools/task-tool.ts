import { z } from 'zod';
import { defineTool, fail } from './define-tool.js';

export const TaskInput = z.object({
  description: z.string().min(1).max(120).describe('A short (3-6 word) label for the subtask, shown in the run tree.'),
  prompt: z.string().min(1).describe('Complete instructions for the subagent; it sees nothing of this conversation.'),
  agent: z.string().min(1).optional().describe('Name of the agent definition to run as (default: a general-purpose subagent).'),
});
export type TaskInput = z.infer<typeof TaskInput>;

/**
 * `task` (HAR-5): hands a self-contained subtask to a subagent and returns its final report.
 *
 * Tier `read`, no effects, no worktree write — on purpose. Starting a child run changes nothing by
 * itself; everything the child does happens through its own tool calls, and each of those passes the
 * gate and the policy engine like any other call. The contract that makes this honest sits with the
 * harness's `runSubagent`: the child's tool surface is the parent's surface or narrower (same mode
 * profile, same worktree, same dial), never wider. With that, delegation adds no capability, and a
 * plan-mode run may still send a read-only research subagent. (Declaring `execute` would have hidden
 * subagents from every read-only mode while adding no protection the per-call gate does not give.)
 *
 * `startsRuns` (SEC-9): the child run carries this run's rules — its space's, its agent's and every
 * ceiling it inherited — so a child can never do what its parent's rules refuse. No effect class:
 * the child works in the parent's own space, mode and checkout (nothing new appears in the workspace
 * but the child's row in the parent's run tree), which is why `workspaceMutation` is not declared and
 * read-only modes keep their research subagents.
 */
export const taskTool = defineTool({
  name: 'task',
  description:
    'Delegate a self-contained subtask to a subagent with the same tools as you (or fewer). It works independently and returns a final report; give it all the context it needs in prompt.',
  parameters: TaskInput,
  tier: 'read',
  effects: [],
  startsRuns: true,
  group: 'agents',
  async execute(input, context) {
    if (!context.runSubagent) {
      return fail('task needs subagents, and this run cannot start them (only the built-in harness can, HAR-5). Do the work yourself.');
    }
    const request = { description: input.description, prompt: input.prompt, ...(input.agent ? { agent: input.agent } : {}) };
    return context.runSubagent(request, context.signal);
  },
});
