import { z } from 'zod';
import { IsoTime } from './common.js';

/**
 * One question of a card, with the options offered (PLAN-4). `consent` marks a card the server put to
 * the operator to approve an action (RLY-6, RLY-7); an agent's own question never carries it.
 */
export const QuestionItem = z.object({ question: z.string(), options: z.array(z.string()).optional(), consent: z.boolean().optional() });
export type QuestionItem = z.infer<typeof QuestionItem>;

/** Pending while the run waits; answered, expired (RLY-4 timeout) or cancelled with the run. */
export const QuestionStatus = z.enum(['pending', 'answered', 'expired', 'cancelled']);
export type QuestionStatus = z.infer<typeof QuestionStatus>;

/** An `ask_user` question card as the API and the `question.*` events carry it (PLAN-4, RLY-4). */
export const Question = z.object({
  id: z.string(),
  runId: z.string(),
  agentId: z.string(),
  conversationId: z.string(),
  questions: z.array(QuestionItem),
  status: QuestionStatus,
  answers: z.array(z.string()).nullable(),
  createdAt: IsoTime,
});
export type Question = z.infer<typeof Question>;

export const AnswerQuestionBody = z.strictObject({ answers: z.array(z.string().max(20_000)).min(1).max(3) });
export type AnswerQuestionBody = z.infer<typeof AnswerQuestionBody>;
