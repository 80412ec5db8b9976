import { z } from 'zod';
import { ASK_USER_TOOL } from '../core/capability-profiles.js';
import { defineTool, fail, ok } from './define-tool.js';

export const AskUserInput = z.object({
  questions: z
    .array(
      z.object({
        question: z.string().min(1).describe('The question, complete and self-contained.'),
        options: z.array(z.string().min(1)).min(2).max(6).optional().describe('Answers to choose from; omit for a free-text answer.'),
      }),
    )
    .min(1)
    .max(3)
    .describe('One to three questions.'),
});
export type AskUserInput = z.infer<typeof AskUserInput>;

/**
 * `ask_user` (PLAN-4): asks the operator one to three questions and waits for the answers. Read tier, no
 * effects — it is pinned in every mode (CAP-6). Without a conversation to ask in it fails rather than
 * guessing: an unanswered question is never a yes (POL-4).
 */
export const askUserTool = defineTool({
  name: ASK_USER_TOOL,
  description: 'Ask the user one to three questions when you need information only they have; each question may offer options. Waits for the answers.',
  parameters: AskUserInput,
  tier: 'read',
  effects: [],
  group: 'conversation',
  async execute(input, context) {
    if (!context.askUser) {
      return fail(
        'ask_user needs a conversation: this run has nobody to answer questions (PLAN-4). Proceed on your best judgement and state the assumptions you made.',
      );
    }
    let answers: string[];
    try {
      answers = await context.askUser(input.questions, context.signal);
    } catch (error) {
      if (context.signal.aborted) return fail('The questions were not answered: the run was cancelled.');
      throw error;
    }
    const lines = input.questions.map((question, index) => {
      const answer = answers[index];
      return `Q: ${question.question}\nA: ${answer === undefined || answer === '' ? '(no answer)' : answer}`;
    });
    return ok(lines.join('\n\n'), { answers });
  },
});
