/**
 * Every event type a workspace's SSE stream carries, in one list. Pure data with no imports: the web
 * imports it at runtime to subscribe to each named event (EventSource delivers named events only to
 * listeners of that name), the server pairs each type with its payload schema in `events.ts`.
 */
export const WORKSPACE_EVENT_TYPES = [
  'workspace.created',
  'workspace.updated',
  'workspace.deleted',
  'workspace.seeded',
  'workspace.seedingFailed',
  'settings.updated',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'presence.updated',
  'space.created',
  'space.updated',
  'space.modeChanged',
  'conversation.created',
  'conversation.updated',
  'message.created',
  'run.created',
  'run.updated',
  'run.event',
  'run.paused',
  'run.resumed',
  'run.steered',
  'approval.requested',
  'approval.decided',
  'question.asked',
  'question.answered',
  'question.expired',
  'question.cancelled',
  'plan.submitted',
  'plan.approved',
  'plan.rejected',
  'plan.updated',
  'orchestration.proposed',
  'orchestration.updated',
  'policy.ruleCreated',
  'policy.ruleDeleted',
  'review.opened',
  'review.updated',
  'review.finding',
  'review.finalized',
  'ticket.created',
  'ticket.updated',
  'ticket.commented',
  'pipelineRun.updated',
] as const;

/** One event type of the workspace stream. */
export type WorkspaceEventType = (typeof WORKSPACE_EVENT_TYPES)[number];
