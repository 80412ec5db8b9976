import { z } from 'zod';
import type { EffectClass } from '../core/effect-classes.js';
import { CONSENT_QUESTION_ENDING, consentQuestion } from '../core/relay/consent-card.js';
import { defineTool, fail, ok, type Tool, type ToolContext, type ToolResult } from './define-tool.js';

/** The tool's name as SPEC RLY-6 spells it. */
export const RELAY_TOOL = 'relay_tool';

/** The write actions of RLY-6; `list` is the one read action. */
export const RELAY_WRITE_ACTIONS = ['send', 'create_session', 'answer_question', 'stop', 'archive'] as const;
export type RelayWriteAction = (typeof RELAY_WRITE_ACTIONS)[number];

// Ids an agent passes are hostile: only the characters our ids are made of, bounded, so nothing odd
// reaches a query, a log line or a question card.
const RelayId = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'must be an id like cv_… (letters, digits, _ and - only)');

/**
 * One flat object, not a union: every provider accepts an object schema, and the execute step names the
 * field an action is missing (convention 5).
 */
export const RelayToolInput = z.object({
  action: z.enum(['list', ...RELAY_WRITE_ACTIONS]).describe('list | send | create_session | answer_question | stop | archive'),
  conversationId: RelayId.optional().describe('The other conversation (cv_…): for send, stop and archive.'),
  text: z.string().min(1).max(20_000).optional().describe('send: the message; create_session: an optional first message.'),
  title: z.string().min(1).max(200).optional().describe('create_session: the new chat\'s title.'),
  questionId: RelayId.optional().describe('answer_question: the q_… id shown by list.'),
  answers: z.array(z.string().max(4000)).min(1).max(3).optional().describe('answer_question: one answer per question of the card.'),
});
export type RelayToolInput = z.infer<typeof RelayToolInput>;

/** A conversation as `list` shows it. */
export interface RelayConversationSummary {
  id: string;
  title: string;
  spaceName: string;
  relayMode: string;
  archived: boolean;
  running: boolean;
  pendingQuestions: Array<{ id: string; questions: string[] }>;
}

/**
 * What relay_tool acts through, bound by the service layer to the run's workspace and agent: the
 * tool never sees an id of another workspace, and refuses the run's own conversation where acting
 * on it would make no sense (stopping or archiving itself, answering its own question).
 * Every method throws a {@link RelayRefusal} with the field at fault, or returns a line for the model.
 */
export interface RelayDesk {
  list(): Promise<RelayConversationSummary[]>;
  /** A line naming the target for the question card (`"Fix login" (cv_1)`); throws when it does not exist here. */
  describe(conversationId: string): Promise<string>;
  describeQuestion(questionId: string): Promise<string>;
  send(conversationId: string, text: string): Promise<string>;
  createSession(title: string | undefined, text: string | undefined): Promise<string>;
  answerQuestion(questionId: string, answers: string[]): Promise<string>;
  stop(conversationId: string): Promise<string>;
  archive(conversationId: string): Promise<string>;
}

/** A refusal the model reads, naming the field at fault. */
export class RelayRefusal extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The option the question card offers for consent; anything else (Deny, a typed reason, a timeout) is a no (POL-4). */
export const RELAY_APPROVE = 'Approve';

/**
 * What each action changes, declared as effect classes (SEC-9). Every write action changes the
 * workspace beyond this conversation: `send` and `create_session` start another conversation's turn
 * (and `create_session` makes a space and a conversation), `answer_question` lets another run go on
 * with words this agent chose, `stop` ends another run, `archive` closes another conversation. So each
 * is `workspaceMutation`, and a rule against that class governs them; `list` changes nothing.
 */
export const RELAY_ACTION_EFFECTS: Readonly<Record<RelayToolInput['action'], readonly EffectClass[]>> = {
  list: [],
  send: ['workspaceMutation'],
  create_session: ['workspaceMutation'],
  answer_question: ['workspaceMutation'],
  stop: ['workspaceMutation'],
  archive: ['workspaceMutation'],
};

/**
 * `relay_tool` (RLY-6): lets an agent list, send to, create, answer, stop and archive other
 * conversations of its workspace.
 *
 * Effects are declared per action ({@link RELAY_ACTION_EFFECTS}) and decided per call by the policy
 * engine, in every relay mode:
 * - agent and autopilot: write tier; the rules and the autonomy dial gate each write action like any
 *   write tool (a `proposeOnly` space denies it, a remembered choice applies);
 * - ask and plan: every write action first asks the operator with a question card and does nothing
 *   unless the answer is "Approve" (`asksOperatorFirst`): the card stands in for the mode's and the
 *   dial's ask, so it is declared read tier (an approval in front of its own question would ask twice,
 *   and fail closed with nobody connected); a rule that denies the class still refuses the call.
 * Runs it starts (`send`, `create_session` with a first message) carry this run's rules as a ceiling
 * (SEC-9): the desk passes them on.
 */
export function relayTool(desk: RelayDesk, options: { askFirst: boolean }): Tool<RelayToolInput> {
  return defineTool({
    name: RELAY_TOOL,
    description:
      'Work with the other conversations of this workspace: list them (with pending questions), send a message to one (starts its agent), create a new chat, answer a question card waiting there, stop its running turn, or archive it.',
    parameters: RelayToolInput,
    tier: options.askFirst ? 'read' : 'write',
    effects: [],
    effectsByAction: { field: 'action', classes: RELAY_ACTION_EFFECTS },
    startsRuns: true,
    ...(options.askFirst ? { asksOperatorFirst: true } : {}),
    group: 'conversation',
    async execute(input, context) {
      try {
        if (input.action === 'list') return ok(formatList(await desk.list()));
        const action = input.action;
        const summary = await describeAction(desk, input);
        if (options.askFirst) {
          const refusal = await askOperator(context, summary);
          if (refusal) return refusal;
        }
        return ok(await perform(desk, action, input), { action });
      } catch (error) {
        if (error instanceof RelayRefusal) return fail(error.message, { field: error.field });
        throw error;
      }
    },
  });
}

function required<T>(value: T | undefined, field: string, action: string): T {
  if (value === undefined) throw new RelayRefusal(field, `${field} is required for ${action}.`);
  return value;
}

/** The action in words for the question card; checks the target exists first, so a bad id never reaches the operator. */
async function describeAction(desk: RelayDesk, input: RelayToolInput): Promise<string> {
  switch (input.action) {
    case 'send':
      return `send to ${await desk.describe(required(input.conversationId, 'conversationId', 'send'))}: ${quote(required(input.text, 'text', 'send'))}`;
    case 'create_session':
      return `create a new chat${input.title ? ` ${quote(input.title)}` : ''}${input.text ? ` and send: ${quote(input.text)}` : ''}`;
    case 'answer_question':
      return `answer ${await desk.describeQuestion(required(input.questionId, 'questionId', 'answer_question'))} with ${required(input.answers, 'answers', 'answer_question').map(quote).join(', ')}`;
    case 'stop':
      return `stop the running turn of ${await desk.describe(required(input.conversationId, 'conversationId', 'stop'))}`;
    case 'archive':
      return `archive ${await desk.describe(required(input.conversationId, 'conversationId', 'archive'))}`;
    default:
      throw new RelayRefusal('action', `unknown action ${String(input.action)}`);
  }
}

async function perform(desk: RelayDesk, action: RelayWriteAction, input: RelayToolInput): Promise<string> {
  switch (action) {
    case 'send':
      return desk.send(input.conversationId!, input.text!);
    case 'create_session':
      return desk.createSession(input.title, input.text);
    case 'answer_question':
      return desk.answerQuestion(input.questionId!, input.answers!);
    case 'stop':
      return desk.stop(input.conversationId!);
    case 'archive':
      return desk.archive(input.conversationId!);
  }
}

/**
 * RLY-6's ask-first: a question card "… wants to relay: …. Approve this action?". Only the Approve
 * option proceeds; a typed answer is passed on as the reason, and no answer is never a yes (POL-4).
 */
async function askOperator(context: ToolContext, summary: string): Promise<ToolResult | null> {
  if (!context.askUser) return fail('relay_tool needs an operator to approve this in the current relay mode, and this run has nobody to ask (POL-4). Nothing was done.');
  let answer: string | undefined;
  try {
    [answer] = await context.askUser([consentQuestion(`relay_tool wants to ${summary}. ${CONSENT_QUESTION_ENDING}`, [RELAY_APPROVE, 'Deny'])], context.signal);
  } catch (error) {
    if (context.signal.aborted) return fail('Not done: the run was cancelled while waiting for approval.');
    throw error;
  }
  if (answer === RELAY_APPROVE) return null;
  const reason = answer === undefined || answer === '' || answer === 'Deny' ? 'the operator denied it' : answer;
  return fail(`Not done: ${reason}. Nothing was changed.`, { approved: false });
}

function quote(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine);
}

function formatList(conversations: RelayConversationSummary[]): string {
  if (conversations.length === 0) return 'No other conversations in this workspace.';
  return conversations
    .map((conversation) => {
      const flags = [conversation.relayMode, conversation.running ? 'running' : null, conversation.archived ? 'archived' : null].filter(Boolean).join(', ');
      const questions = conversation.pendingQuestions.map((pending) => `\n  question ${pending.id}: ${pending.questions.map(quote).join(' / ')}`).join('');
      return `${conversation.id} ${quote(conversation.title)} in ${quote(conversation.spaceName)} [${flags}]${questions}`;
    })
    .join('\n');
}
