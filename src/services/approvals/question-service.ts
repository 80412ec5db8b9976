import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { UserQuestion } from '../../tools/define-tool.js';
import type { EventBus } from '../event-bus.js';

/** RLY-4: what the agent is told when nobody answered a question card in time. */
export const NO_RESPONSE_LINE = '[No user response before timeout — continue according to the current relay mode.]';

export interface PendingQuestion {
  id: string;
  workspaceId: string;
  runId: string;
  agentId: string;
  conversationId: string;
  questions: UserQuestion[];
  status: 'pending' | 'answered' | 'expired' | 'cancelled';
  answers: string[] | null;
  createdAt: string;
}

/**
 * `ask_user` question cards (PLAN-4, RLY-4). The run blocks until an operator answers; an unanswered
 * card times out and the agent is told so in the words of RLY-4. Questions live as long as their
 * run; the answers end up in the run log as the tool call's output.
 */
export class QuestionService {
  private readonly questions = new Map<string, { question: PendingQuestion; resolve: (answers: string[] | null) => void }>();

  constructor(private readonly events: EventBus) {}

  async ask(
    input: Omit<PendingQuestion, 'id' | 'status' | 'answers' | 'createdAt'>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<string[]> {
    const question: PendingQuestion = { ...input, id: newId('q'), status: 'pending', answers: null, createdAt: nowIso() };
    const answers = await new Promise<string[] | null>((resolve) => {
      const finish = (value: string[] | null) => {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const timer = setTimeout(() => {
        question.status = 'expired';
        this.questions.delete(question.id);
        this.events.publish(question.workspaceId, 'question.expired', question);
        finish(null);
      }, options.timeoutMs);
      const onAbort = () => {
        question.status = 'cancelled';
        this.questions.delete(question.id);
        this.events.publish(question.workspaceId, 'question.cancelled', question);
        finish(null);
      };
      options.signal.addEventListener('abort', onAbort, { once: true });
      this.questions.set(question.id, { question, resolve: finish });
      this.events.publish(question.workspaceId, 'question.asked', question);
    });
    return answers ?? question.questions.map(() => NO_RESPONSE_LINE);
  }

  list(workspaceId: string): PendingQuestion[] {
    return [...this.questions.values()].map((entry) => entry.question).filter((question) => question.workspaceId === workspaceId);
  }

  /** Whether a run of this process waits on the question (who applies an answer sent elsewhere). */
  holds(workspaceId: string, questionId: string): boolean {
    return this.questions.get(questionId)?.question.workspaceId === workspaceId;
  }

  answer(workspaceId: string, questionId: string, answers: string[]): PendingQuestion {
    const entry = this.questions.get(questionId);
    if (!entry || entry.question.workspaceId !== workspaceId) throw new NotFoundError('question', questionId, 'questionId');
    if (entry.question.status !== 'pending') throw new ConflictError('questionId', `question ${questionId} is ${entry.question.status}`);
    if (answers.length !== entry.question.questions.length) {
      throw new ValidationError('answers', `expected ${entry.question.questions.length} answer(s), got ${answers.length}`);
    }
    entry.question.status = 'answered';
    entry.question.answers = answers;
    this.questions.delete(questionId);
    this.events.publish(workspaceId, 'question.answered', entry.question);
    entry.resolve(answers);
    return entry.question;
  }
}
