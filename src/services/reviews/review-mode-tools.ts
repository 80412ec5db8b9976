import { z } from 'zod';
import { findingDropReason } from '../../core/review/read-finding.js';
import { FINDING_TYPES } from '../../core/review/review-types.js';
import { DomainError } from '../../errors/domain-error.js';
import { ValidationError } from '../../errors/validation-error.js';
import { fail, ok, defineTool, type Tool, type ToolResult } from '../../tools/define-tool.js';
import type { MessageService } from '../runs/message-service.js';
import type { ModeToolProvider } from '../runs/run-executor.js';
import type { TicketService } from '../tickets/ticket-service.js';
import type { ReviewService } from './review-service.js';
import { AssessAxisBody, type Finding, type Review } from '../../schemas/review.js';

export const AddReviewNodeInput = z.object({
  type: z.enum(FINDING_TYPES).describe('bug, suggestion, recommendation, question or ticket.'),
  // Loosely typed on purpose: a missing or out-of-range value is dropped at the read boundary and
  // counted (REV-3), and the agent is told why, instead of a schema error that leaves no trace.
  priority: z.string().optional().describe('P0 (blocks release), P1, P2 or P3 (optional). Required.'),
  confidence: z.number().optional().describe('Your honest confidence that the finding is right, 0 to 1. Required.'),
  body: z.string().min(1).max(20_000).describe('What is wrong and why, and what to do about it.'),
  anchor: z
    .object({ path: z.string().min(1), startLine: z.number().int(), endLine: z.number().int() })
    .optional()
    .describe('File (repository-relative) and head-side line range; must overlap the changed lines. Omit for repo-wide notes.'),
  axis: z.string().max(40).optional().describe('The axis the finding is about: correctness, security, tests…'),
});

const FindingIdInput = z.object({ findingId: z.string().min(1).describe('The fnd_… id.') });

/** Runs a review action and turns a domain error into a tool failure the agent can read (convention 5). */
async function attempt(action: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof DomainError) return fail(error.message, { code: error.code, field: error.field });
    throw error;
  }
}

/** Input schemas built once per process, not per run: a tool's JSON schema is converted once per schema object. */
const ListReviewNodesInput = z.object({});
const DismissFindingInput = FindingIdInput.extend({ reason: z.string().min(1).max(4000) });
const ResolveFindingInput = FindingIdInput.extend({ reason: z.string().max(4000).optional() });
const FinalizeReviewInput = z.object({ headline: z.string().max(300).optional(), note: z.string().max(8000).optional() });
const CreateTicketInput = z.object({ title: z.string().min(1).max(300), description: z.string().max(20_000).default(''), findingId: z.string().optional() });
const UpdateTicketInput = z.object({ ticketId: z.string().min(1), title: z.string().max(300).optional(), description: z.string().max(20_000).optional(), status: z.string().optional() });
const CommentTicketInput = z.object({ ticketId: z.string().min(1), body: z.string().min(1).max(20_000) });
const SendMessageInput = z.object({ text: z.string().min(1).max(20_000) });
const AssessAxisInput = z.object({
  axis: AssessAxisBody.shape.axis.describe('The axis you assessed: correctness, security, tests (or another short slug).'),
  assessment: AssessAxisBody.shape.assessment.describe('pass: you checked it and found no problem; fail: you found one (record it with add_review_node too).'),
  basis: AssessAxisBody.shape.basis.describe('What you checked to reach this, concretely (files, functions, tests run or read). Shown with the axis.'),
});

/**
 * Review mode's verbs (REV-2, REV-3, REV-5) and its ticket and comms tools (CAP-3), bound to the run:
 * the acting principal is always the run's agent, never an argument. The review is the one the run's
 * space was opened for.
 */
export function reviewModeTools(services: { reviews: ReviewService; tickets: TicketService; messages: MessageService }): ModeToolProvider {
  return ({ workspaceId, runId, agent, spaceId, conversationId, mode }) => {
    if (mode !== 'review' || !spaceId) return [];
    const me = { kind: 'agent' as const, id: agent.id };
    const withReview = (action: (review: Review) => Promise<ToolResult>) =>
      attempt(async () => {
        const review = await services.reviews.forSpace(workspaceId, spaceId);
        if (!review) return fail('This space has no review: it was not opened for a pull request.');
        return action(review);
      });
    /**
     * A ticket tool acts on the review's own tickets only: the review agent was given this review, not
     * the workspace's ticket board, and a ticket it could move elsewhere is work it could redirect.
     */
    const withOwnTicket = (ticketId: string, action: (review: Review) => Promise<ToolResult>) =>
      withReview(async (review) => {
        const ticket = await services.tickets.get(workspaceId, ticketId);
        if (ticket.reviewId !== review.id) {
          throw new ValidationError('ticketId', `ticketId ${JSON.stringify(ticketId)} is not one of this review's tickets: a review agent changes and comments only on the tickets of its own review (those created with create_ticket)`);
        }
        return action(review);
      });
    /** Events these tools cause are marked as an agent's, so pipeline triggers do not start work from them. */
    const causedBy = (tool: string) => ({ agentRunId: runId, tool });
    /** One of the verbs that act on a finding by id (confirm, dismiss, resolve): records only, in the run's review. */
    const findingVerb = <T extends typeof FindingIdInput>(verb: { name: string; description: string; parameters: T; act: (input: z.infer<T>, review: Review) => Promise<Finding>; said: (finding: Finding) => string }) =>
      defineTool({
        name: verb.name,
        description: verb.description,
        parameters: verb.parameters,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'review',
        execute: (input) => withReview(async (review) => ok(verb.said(await verb.act(input, review)))),
      });
    const tools: Tool[] = [
      defineTool({
        name: 'add_review_node',
        description:
          'Record one finding on the change under review. Returns its id (fnd_…). The anchor must overlap the lines the diff changed; an anchor outside the diff is refused.',
        parameters: AddReviewNodeInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'review',
        execute: (input) =>
          withReview(async (review) => {
            const problem = findingDropReason({ priority: input.priority, confidence: input.confidence, type: input.type, status: 'open' });
            if (problem) {
              await services.reviews.recordDropped(workspaceId, review.id, me, runId, { type: input.type, priority: input.priority, confidence: input.confidence, body: input.body });
              return fail(`Finding dropped (REV-3): ${problem}. It does not count towards the verdict. Call add_review_node again with priority P0–P3 and confidence between 0 and 1.`);
            }
            const finding = await services.reviews.addFinding(workspaceId, review.id, me, runId, {
              type: input.type,
              priority: input.priority as 'P0' | 'P1' | 'P2' | 'P3',
              confidence: input.confidence!,
              body: input.body,
              anchor: input.anchor ?? null,
              axis: input.axis ?? null,
            });
            return ok(`Recorded ${finding.id} (${finding.priority} ${finding.type}).`, { findingId: finding.id });
          }),
      }),
      defineTool({
        name: 'list_review_nodes',
        description: "List the review's findings so far (yours and your peers'), with ids, authors and status.",
        parameters: ListReviewNodesInput,
        tier: 'read',
        effects: [],
        group: 'review',
        execute: () =>
          withReview(async (review) => {
            const { findings } = await services.reviews.findings(workspaceId, review.id);
            if (findings.length === 0) return ok('No findings yet.');
            const lines = findings.map((finding) => {
              const anchor = finding.anchor ? ` ${finding.anchor.path}:${finding.anchor.startLine}-${finding.anchor.endLine}` : '';
              const mine = finding.author.kind === 'agent' && finding.author.id === agent.id ? ' (yours)' : '';
              return `${finding.id} [${finding.status}] ${finding.priority} ${finding.type} c=${finding.confidence}${anchor}${mine}: ${finding.body.slice(0, 300)}`;
            });
            return ok(lines.join('\n'));
          }),
      }),
      findingVerb({
        name: 'confirm_review_node',
        description: "Confirm a peer's finding you verified yourself (open → consensusReady). You cannot confirm your own.",
        parameters: FindingIdInput,
        act: (input, review) => services.reviews.confirm(workspaceId, input.findingId, me, review.id),
        said: (finding) => `${finding.id} is now ${finding.status}.`,
      }),
      findingVerb({
        name: 'dismiss_review_node',
        description: 'Dismiss a finding that is wrong, with the reason.',
        parameters: DismissFindingInput,
        act: (input, review) => services.reviews.dismiss(workspaceId, input.findingId, me, input.reason, review.id),
        said: (finding) => `${finding.id} dismissed.`,
      }),
      findingVerb({
        name: 'resolve_review_node',
        description: 'Mark a finding resolved: the current head fixes it (on a re-review, after you re-verified it).',
        parameters: ResolveFindingInput,
        act: (input, review) => services.reviews.resolve(workspaceId, input.findingId, me, input.reason, review.id),
        said: (finding) => `${finding.id} resolved.`,
      }),
      defineTool({
        name: 'assess_review_axis',
        description:
          'Record your explicit assessment of one axis (correctness, security, tests…) of the head under review, with what you checked. An axis nobody assessed is "not assessed" and holds the verdict: saying "OK" is not an assessment.',
        parameters: AssessAxisInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'review',
        execute: (input) =>
          withReview(async (review) => {
            const recorded = await services.reviews.assessAxis(workspaceId, review.id, { ...me, name: agent.name }, runId, input);
            return ok(`Recorded: ${recorded.axis} ${recorded.assessment} for head ${recorded.headSha.slice(0, 10)}.`, { assessmentId: recorded.id });
          }),
      }),
      defineTool({
        name: 'finalize_review',
        description: 'Publish the verdict (ship, hold or block), folded by the server from the open findings and the gated checks. Optional.',
        parameters: FinalizeReviewInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'review',
        execute: (input) =>
          withReview(async (review) => {
            const published = await services.reviews.finalize(
              workspaceId,
              review.id,
              me,
              {
                ...(input.headline !== undefined ? { headline: input.headline } : {}),
                ...(input.note !== undefined ? { note: input.note } : {}),
              },
              causedBy('finalize_review'),
            );
            const verdict = published.verdict!;
            return ok(`Verdict published: ${verdict.verdict} (confidence ${verdict.confidence}). ${verdict.reasons.join('; ') || 'No blocking findings.'} ${verdict.delta.summary}.`, {
              verdict: verdict.verdict,
            });
          }),
      }),
      defineTool({
        name: 'create_ticket',
        description: 'Open a ticket for follow-up work the review found (it is tracked with the review).',
        parameters: CreateTicketInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'tickets',
        execute: (input) =>
          withReview(async (review) => {
            const ticket = await services.tickets.create(workspaceId, {
              title: input.title,
              description: input.description,
              reviewId: review.id,
              findingId: input.findingId ?? null,
              createdBy: me,
            });
            return ok(`Created ticket ${ticket.id}.`, { ticketId: ticket.id });
          }),
      }),
      defineTool({
        name: 'update_ticket',
        description: "Change one of this review's tickets: title, description or status (open, inProgress, blocked, done, failed, cancelled).",
        parameters: UpdateTicketInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'tickets',
        execute: (input) => {
          const { ticketId, ...change } = input;
          return withOwnTicket(ticketId, async () => {
            const ticket = await services.tickets.update(workspaceId, ticketId, change, causedBy('update_ticket'));
            return ok(`Ticket ${ticket.id} is ${ticket.status}.`);
          });
        },
      }),
      defineTool({
        name: 'comment_ticket',
        description: "Add a comment to one of this review's tickets.",
        parameters: CommentTicketInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'tickets',
        execute: (input) =>
          withOwnTicket(input.ticketId, async () => {
            const comment = await services.tickets.comment(workspaceId, input.ticketId, me, input.body, causedBy('comment_ticket'));
            return ok(`Commented on ${input.ticketId} (${comment.id}).`);
          }),
      }),
      defineTool({
        name: 'send_message',
        description: "Post a message in the review's conversation, visible to the people and the other reviewers.",
        parameters: SendMessageInput,
        tier: 'write',
        effects: [],
        recordsOnly: true,
        group: 'comms',
        execute: (input) =>
          withReview(async (review) => {
            const message = await services.messages.append(workspaceId, {
              conversationId: conversationId ?? review.conversationId,
              runId,
              role: 'assistant',
              authorKind: 'agent',
              authorId: agent.id,
              mode: 'review',
              picker: null,
              content: input.text,
            });
            return ok(`Posted message ${message.id}.`);
          }),
      }),
    ];
    return tools;
  };
}
