import type { Logger } from 'pino';
import { nowIso } from '../../ids.js';
import type { WorkspaceEvent } from '../../schemas/events.js';
import { findOrchestrationOfPlan, updateOrchestration } from '../../store/repositories/orchestration-repository.js';
import { findPipelineRunSource, findPipelineRunStatus } from '../../store/repositories/pipeline-run-repository.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { PerKeyLock } from '../../core/per-key-lock.js';
import { planOrchestrationStatus } from './plan-orchestration.js';

/**
 * PLAN-7: keeps the orchestration that records an approved plan in step with the plan's engine run —
 * its `pipelineRunId` once the run exists, its status from the run's (approved → executing →
 * completed | failed | cancelled). Every `pipelineRun.updated` of a plan's run is followed; runs of
 * other sources are remembered as such so they cost one lookup each.
 */
export class PlanRecordFollower {
  /** Pipeline run → plan id (null: not a plan's run); bounded, it is only a cache. */
  private readonly planOfRun = new Map<string, string | null>();
  private readonly lock = new PerKeyLock();

  constructor(
    private readonly workspaces: WorkspaceService,
    events: EventBus,
    private readonly published: (workspaceId: string, orchestrationId: string) => Promise<unknown>,
    private readonly logger?: Logger,
  ) {
    events.subscribeAll((event) => this.onEvent(event));
  }

  private onEvent(event: WorkspaceEvent): void {
    if (event.type !== 'pipelineRun.updated') return;
    const runId = event.data.runId;
    if (this.planOfRun.get(runId) === null) return;
    void this.lock
      .exclusive(runId, () => this.follow(event.workspaceId, runId))
      .catch((error: unknown) => this.logger?.warn({ err: error, runId }, 'following a plan run for its orchestration failed'));
  }

  private async follow(workspaceId: string, runId: string): Promise<void> {
    const db = (await this.workspaces.handle(workspaceId)).database.db;
    let planId = this.planOfRun.get(runId);
    if (planId === undefined) {
      const source = await findPipelineRunSource(db, runId);
      planId = source?.kind === 'plan' && source.id ? source.id : null;
      if (this.planOfRun.size >= 10_000) this.planOfRun.clear();
      this.planOfRun.set(runId, planId);
    }
    if (!planId) return;
    const [record, run] = await Promise.all([findOrchestrationOfPlan(db, planId), findPipelineRunStatus(db, runId)]);
    if (!record || !run) return;
    const status = planOrchestrationStatus(run.status);
    if (record.status === status && record.pipelineRunId === runId) return;
    await updateOrchestration(db, record.id, { status, pipelineRunId: runId, updatedAt: nowIso() });
    await this.published(workspaceId, record.id);
  }
}
