import { Orchestration } from './orchestration.js';
import { z } from 'zod';
import { Finding, GateProgress, Review } from './review.js';
import { Ticket, TicketComment } from './ticket.js';
import type { AgentEvent as HarnessAgentEvent } from '../harness/agent-events.js';
import { Agent } from './agent.js';
import { Approval } from './approval.js';
import { IsoTime } from './common.js';
import { WORKSPACE_EVENT_TYPES, type WorkspaceEventType } from './event-types.js';
import { Message } from './message.js';
import { Plan } from './plan.js';
import { PolicyRule } from './policy.js';
import { OperatorPresenceList, Presence } from './presence.js';
import { Question } from './question.js';
import { Run } from './run.js';
import { WorkspaceSettingsView } from './settings.js';
import { AutonomySchema, Conversation, ModeSchema, PickerValue, Space } from './space.js';
import { Workspace } from './workspace.js';
import { BudgetAlert } from './budget.js';

export { WORKSPACE_EVENT_TYPES, type WorkspaceEventType };

/** `*.deleted` events carry only the id of what is gone. */
export const EntityDeleted = z.object({ id: z.string() });

/** A pipeline run or one of its nodes changed (PIPE-1); clients refetch the run. */
export const PipelineRunChanged = z.object({ runId: z.string() });
export type EntityDeleted = z.infer<typeof EntityDeleted>;

/** Background seeding of a new workspace failed; the workspace stays usable without the seed agents. */
export const WorkspaceSeedingFailed = z.object({ id: z.string(), error: z.string() });
export type WorkspaceSeedingFailed = z.infer<typeof WorkspaceSeedingFailed>;

/** A space's (mode, autonomy) changed (MODE-2): the new pair, its picker value and the previous pair. */
export const SpaceModeChanged = z.object({
  spaceId: z.string(),
  mode: ModeSchema,
  autonomy: AutonomySchema,
  picker: PickerValue.nullable(),
  previous: z.object({ mode: ModeSchema, autonomy: AutonomySchema }),
});
export type SpaceModeChanged = z.infer<typeof SpaceModeChanged>;

/**
 * The harness's event union (src/harness/agent-events.ts) is the source of truth for a run's live
 * events; this checks only that it is an object with a `type` and types it as that union.
 */
export const AgentEvent = z.custom<HarnessAgentEvent>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string',
  'must be an agent event with a type',
);
export type AgentEvent = HarnessAgentEvent;

/** `run.event`: one live AgentEvent of a run, with the run's conversation and agent (HAR-6). */
export const RunLiveEvent = z.object({
  runId: z.string(),
  conversationId: z.string().nullable(),
  agentId: z.string(),
  event: AgentEvent,
});
export type RunLiveEvent = z.infer<typeof RunLiveEvent>;

/** `run.paused` / `run.resumed`: the run whose control changed (HAR-5). */
export const RunControlled = z.object({ runId: z.string() });
export type RunControlled = z.infer<typeof RunControlled>;

/** `run.steered`: the operator's steering text queued for a running turn (HAR-5). */
export const RunSteered = z.object({ runId: z.string(), text: z.string() });
export type RunSteered = z.infer<typeof RunSteered>;

/** `budget.limitChanged`: the spend limit set, raised or removed (BUD-1); every process reads the limits again. */
export const BudgetLimitChanged = z.object({ limitId: z.string() });
export type BudgetLimitChanged = z.infer<typeof BudgetLimitChanged>;

/**
 * Every event type paired with its payload schema. `satisfies` makes a type without a schema, or a
 * schema for a type not in `WORKSPACE_EVENT_TYPES`, a compile error.
 */
export const WORKSPACE_EVENT_PAYLOADS = {
  'workspace.created': Workspace,
  'workspace.updated': Workspace,
  'workspace.deleted': EntityDeleted,
  'workspace.seeded': Workspace,
  'workspace.seedingFailed': WorkspaceSeedingFailed,
  'settings.updated': WorkspaceSettingsView,
  'agent.created': Agent,
  'agent.updated': Agent,
  'agent.deleted': EntityDeleted,
  'presence.updated': Presence,
  'presence.operators': OperatorPresenceList,
  'space.created': Space,
  'space.updated': Space,
  'space.modeChanged': SpaceModeChanged,
  'conversation.created': Conversation,
  'conversation.updated': Conversation,
  'message.created': Message,
  'run.created': Run,
  'run.updated': Run,
  'run.event': RunLiveEvent,
  'run.paused': RunControlled,
  'run.resumed': RunControlled,
  'run.steered': RunSteered,
  'approval.requested': Approval,
  'approval.decided': Approval,
  'question.asked': Question,
  'question.answered': Question,
  'question.expired': Question,
  'question.cancelled': Question,
  'plan.submitted': Plan,
  'plan.approved': Plan,
  'plan.rejected': Plan,
  'plan.updated': Plan,
  'orchestration.proposed': Orchestration,
  'orchestration.updated': Orchestration,
  'policy.ruleCreated': PolicyRule,
  'policy.ruleDeleted': EntityDeleted,
  'review.opened': Review,
  'review.updated': Review,
  'review.finding': Finding,
  'review.finalized': Review,
  'review.gate': GateProgress,
  'ticket.created': Ticket,
  'ticket.updated': Ticket,
  'ticket.commented': TicketComment,
  'pipelineRun.updated': PipelineRunChanged,
  // BUD-1: a spend limit's soft threshold or the limit itself reached, and its decision.
  'budget.alert': BudgetAlert,
  // BUD-1: a spend limit was set, changed (a decision's raise) or removed; clients refetch the limits.
  'budget.limitChanged': BudgetLimitChanged,
} as const satisfies Record<WorkspaceEventType, z.ZodType>;

/** The payload type of each event type. */
export type WorkspaceEventPayloads = { [T in WorkspaceEventType]: z.infer<(typeof WORKSPACE_EVENT_PAYLOADS)[T]> };

/** One live event of a workspace, as the SSE stream sends it: a union discriminated by `type`. */
export type WorkspaceEvent = {
  [T in WorkspaceEventType]: {
    /** Monotonic per server process; the SSE `id:` so a reconnecting client can resume. */
    sequence: number;
    workspaceId: string;
    type: T;
    at: string;
    data: WorkspaceEventPayloads[T];
    /** Set when an agent's tool call caused the event (SEC-9): reactions that start work, such as pipeline triggers, do not fire on it. */
    cause?: EventCause;
  };
}[WorkspaceEventType];

/** What caused an event, when it was not a person or the server itself. */
export interface EventCause {
  /** The run whose agent called the tool that caused the event. */
  agentRunId: string;
  /** The tool it called. */
  tool: string;
}

const EventEnvelope = z.object({
  sequence: z.number().int(),
  workspaceId: z.string(),
  type: z.enum(WORKSPACE_EVENT_TYPES),
  at: IsoTime,
  data: z.unknown(),
});

/**
 * Parses one SSE event (its JSON `data:` line) against the envelope and its type's payload schema.
 * Unknown keys in payloads are kept out of the result (zod strips them); the wire is unchanged.
 */
export const WorkspaceEvent = EventEnvelope.transform((envelope, context): WorkspaceEvent => {
  const parsed = WORKSPACE_EVENT_PAYLOADS[envelope.type].safeParse(envelope.data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) context.addIssue({ code: 'custom', path: ['data', ...issue.path], message: issue.message });
    return z.NEVER;
  }
  return { ...envelope, data: parsed.data } as WorkspaceEvent;
});
