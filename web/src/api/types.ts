/**
 * The API's shapes as the browser sees them: the server's own zod schema types (src/schemas/*),
 * imported type-only through the `@server/*` alias, so the web cannot drift from what the server
 * sends. `import type` only — the web never bundles server runtime code (enforced by lint).
 */
import type { Agent, UpdateAgentBody } from '@server/schemas/agent';
import type { Plan, PlanNodeView } from '@server/schemas/plan';

export type { Agent, AgentState } from '@server/schemas/agent';
export type { Approval, ApprovalStatus } from '@server/schemas/approval';
export type { ApiError } from '@server/schemas/common';
export type { AgentEvent, WorkspaceEvent, WorkspaceEventPayloads, WorkspaceEventType } from '@server/schemas/events';
export type { HonestyMatrix, HonestyRow } from '@server/schemas/honesty';
export type { Inbox, InboxItem, InboxItemKind } from '@server/schemas/inbox';
export type { Message, PostMessageBody, PostMessageResponse } from '@server/schemas/message';
export type { Plan, PlanCostEstimate, PlanError, PlanStatus } from '@server/schemas/plan';
export type { CreateRuleBody, DecidedBy, PolicyRule, ProbeResult, RuleMatch } from '@server/schemas/policy';
export type { OperatorHere, Presence, PresenceStatus } from '@server/schemas/presence';
export type { Question, QuestionItem } from '@server/schemas/question';
export type { Run, RunControls, RunDetail, RunEventRecord, RunState, RunTreeNode, ToolCallRecord } from '@server/schemas/run';
export type { WorkspaceSettingsView as SettingsView } from '@server/schemas/settings';
export type { Conversation, PickerValue, Space } from '@server/schemas/space';
export type { ConversationShare, CreatedConversationShare, SharedConversation } from '@server/schemas/conversation-share';
export type { Workspace } from '@server/schemas/workspace';
export type { AutonomyLevel as Autonomy, Mode } from '@server/core/modes';
export type { PlanNodeState } from '@server/core/plan/plan-progress';
export type { ProviderId } from '@server/llm/provider-ids';

/** What the agent editor may change: the update body of `PATCH /agents/:agentId`. */
export type AgentPatch = UpdateAgentBody;

/** One step of a plan as the server sends it (PLAN-3, PLAN-8). */
export type PlanNode = PlanNodeView;

/** Agents whose fields the editor shows. */
export type AgentFields = Omit<Agent, 'id' | 'workspaceId' | 'state' | 'createdAt' | 'updatedAt'>;

/** A plan's `costEstimate`. */
export type CostEstimate = Plan['costEstimate'];
