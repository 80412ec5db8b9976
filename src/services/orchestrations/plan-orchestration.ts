import type { Transaction } from 'kysely';
import { planAsProposal } from '../../core/orchestrations/plan-as-proposal.js';
import type { OrchestrationStatus } from '../../core/orchestrations/orchestration-status.js';
import { newId } from '../../ids.js';
import { insertOrchestration, insertRevision } from '../../store/repositories/orchestration-repository.js';
import type { PipelineRunStatus } from '../../store/repositories/pipeline-run-repository.js';
import type { PlanRecord } from '../../store/repositories/plan-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/**
 * PLAN-7: records an approved plan as an `orc_` orchestration, in the approval's own transaction so a
 * plan is never approved without its record. It starts `approved` (decided by the operator who approved
 * the plan) and follows the plan's engine run from there (plan-record-follower.ts).
 */
export async function recordPlanOrchestration(trx: Transaction<WorkspaceSchema>, plan: PlanRecord, input: { decidedBy: string; at: string }): Promise<string> {
  const id = newId('orc');
  await insertOrchestration(trx, {
    id,
    conversationId: plan.conversationId,
    spaceId: plan.spaceId,
    orchestratorAgentId: plan.agentId,
    runId: plan.runId,
    goal: plan.submission.goal,
    status: 'approved',
    latestRevision: 1,
    approvedRevision: 1,
    approvedKeys: null,
    decidedBy: input.decidedBy,
    reason: null,
    teamId: null,
    projectId: null,
    pipelineRunId: null,
    maxUsd: null,
    spentUsd: 0,
    budgetPaused: false,
    error: null,
    createdAt: input.at,
    decidedAt: input.at,
    updatedAt: input.at,
    planId: plan.id,
    budgetApprovalId: null,
    budgetGrantNode: null,
  });
  await insertRevision(trx, { orchestrationId: id, revision: 1, proposal: planAsProposal(plan), runId: plan.runId, createdAt: input.at });
  return id;
}

/**
 * The status a plan's orchestration shows for its plan's engine run (`running` → `executing`, then the
 * run's end). It mirrors the run rather than walking the proposal status machine: PLAN-8's resume
 * re-opens a failed or cancelled run, and the record follows it back to `executing`.
 */
export function planOrchestrationStatus(run: PipelineRunStatus): OrchestrationStatus {
  return run === 'running' ? 'executing' : run;
}
