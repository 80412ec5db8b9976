import { z } from 'zod';
import { ORCHESTRATION_STATUSES } from '../core/orchestrations/orchestration-status.js';
import { IsoTime } from './common.js';

export const OrchestrationStatus = z.enum(ORCHESTRATION_STATUSES);

const Hire = z.object({ name: z.string(), title: z.string(), persona: z.string(), skills: z.array(z.string()) });

/** A stored (validated) proposal, as the API returns it (ORC-1). */
export const OrchestrationProposalView = z.object({
  goal: z.string(),
  roles: z.array(z.object({ roleKey: z.string(), title: z.string(), agentId: z.string().optional(), hire: Hire.optional() })),
  subTickets: z.array(
    z.object({ key: z.string(), title: z.string(), roleKey: z.string(), description: z.string(), dependsOn: z.array(z.string()), expectedOutput: z.string().optional() }),
  ),
  research: z.object({ prompt: z.string(), roleKey: z.string().optional() }).optional(),
  /** Absent only for a plan's record (PLAN-7): a plan has no synthesis step. */
  synthesis: z.object({ roleKey: z.string(), prompt: z.string(), outputSchema: z.record(z.string(), z.unknown()) }).optional(),
  budget: z.object({ estimatedUsd: z.number().optional(), maxUsd: z.number().optional() }).optional(),
});

/** ORC-2: a band from the role's run history, or unknown — never an invented number. */
export const RoleEstimateView = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('band'), lowUsd: z.number(), medianUsd: z.number(), highUsd: z.number(), runs: z.number(), workItems: z.number() }),
  z.object({ kind: z.literal('unknown'), reason: z.string(), runs: z.number(), workItems: z.number() }),
]);

export const Orchestration = z.object({
  id: z.string(),
  conversationId: z.string().nullable(),
  spaceId: z.string().nullable(),
  orchestratorAgentId: z.string(),
  runId: z.string().nullable(),
  goal: z.string(),
  status: OrchestrationStatus,
  latestRevision: z.number(),
  approvedRevision: z.number().nullable(),
  approvedKeys: z.array(z.string()).nullable(),
  decidedBy: z.string().nullable(),
  reason: z.string().nullable(),
  teamId: z.string().nullable(),
  projectId: z.string().nullable(),
  pipelineRunId: z.string().nullable(),
  maxUsd: z.number().nullable(),
  spentUsd: z.number(),
  budgetPaused: z.boolean(),
  error: z.string().nullable(),
  createdAt: IsoTime,
  decidedAt: IsoTime.nullable(),
  updatedAt: IsoTime,
  /** PLAN-7: the approved plan this orchestration records (its sub-tickets are the plan's steps); null for a proposal. */
  planId: z.string().nullable(),
  /** ORC-4: the pending Inbox approval of a budget pause, if any. */
  budgetApprovalId: z.string().nullable(),
  /** ORC-4: what each admitted node in flight holds of maxUsd (durable: a restart keeps them). */
  budgetReservations: z.array(z.object({ pipelineRunId: z.string(), nodeKey: z.string(), reservedUsd: z.number() })),
  /** The latest revision's proposal. */
  proposal: OrchestrationProposalView,
  revisions: z.array(z.object({ revision: z.number(), createdAt: IsoTime })),
  estimates: z.array(z.object({ roleKey: z.string(), estimate: RoleEstimateView })),
  /** Roles mapped to agents once hired (empty before materialization). */
  members: z.array(z.object({ roleKey: z.string(), agentId: z.string(), hired: z.boolean() })),
  /** Materializer steps done, in order (ORC-4). */
  steps: z.array(z.string()),
});
export type Orchestration = z.infer<typeof Orchestration>;

const FieldChange = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });
const KeyedChanges = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.object({ key: z.string(), changes: z.array(FieldChange) })),
});

/** ORC-3: what changed between two revisions. */
export const OrchestrationRevisionDiff = z.object({
  from: z.number(),
  to: z.number(),
  diff: z.object({
    goal: FieldChange.nullable(),
    roles: KeyedChanges,
    subTickets: KeyedChanges,
    research: FieldChange.nullable(),
    synthesis: z.array(FieldChange),
    budget: z.array(FieldChange),
  }),
});

/** ORC-2: the operator approves the revision they looked at, optionally a dependency-closed subset. */
export const ApproveOrchestrationBody = z.strictObject({
  revision: z.number().int().min(1),
  subTicketKeys: z.array(z.string().min(1).max(64)).min(1).max(16).optional(),
});

export const DecideOrchestrationBody = z.strictObject({ reason: z.string().max(2_000).optional() });

/** Raising (or keeping) the cap after a budget pause. */
export const OrchestrationBudgetBody = z.strictObject({ maxUsd: z.number().min(0).max(1_000_000) });
