import type { PipelineNode } from '../../core/pipelines/pipeline-definition.js';
import type { Run } from '../../schemas/run.js';
import type { AgentService } from '../agents/agent-service.js';
import { CancelledNodeError, PermanentNodeError, type NodeExecution } from '../pipelines/node-executor.js';
import type { PipelineEngine } from '../pipelines/pipeline-engine.js';
import type { RunExecutor } from '../runs/run-executor.js';
import type { TurnService } from '../runs/turn-service.js';
import type { SettingsService } from '../workspaces/settings-service.js';

export interface PlanStepExecutorDeps {
  agents: AgentService;
  turns: TurnService;
  executor: () => RunExecutor;
  settings: SettingsService;
}

type PlanStepNode = Extract<PipelineNode, { type: 'planStep' }>;

/**
 * How many steps of one plan run at once: the workspace's `maxConcurrentRuns` (PLAN-8), read when a
 * step asks, so a changed setting applies to the next step. Waiters are served in arrival order.
 */
class PlanStepSlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  /** Resolves when the plan may start one more step; rejects when `signal` aborts first. */
  async acquire(planId: string, limit: () => Promise<number>, signal: AbortSignal, onWait: () => void): Promise<void> {
    for (;;) {
      if (signal.aborted) throw signal.reason as Error;
      if ((this.running.get(planId) ?? 0) < (await limit())) {
        this.running.set(planId, (this.running.get(planId) ?? 0) + 1);
        return;
      }
      onWait();
      await new Promise<void>((resolve, reject) => {
        const queue = this.waiting.get(planId) ?? [];
        const wake = () => {
          signal.removeEventListener('abort', abort);
          resolve();
        };
        const abort = () => {
          const list = this.waiting.get(planId);
          if (list) list.splice(list.indexOf(wake), 1);
          reject(signal.reason as Error);
        };
        queue.push(wake);
        this.waiting.set(planId, queue);
        signal.addEventListener('abort', abort, { once: true });
      });
    }
  }

  release(planId: string): void {
    const count = (this.running.get(planId) ?? 1) - 1;
    if (count <= 0) this.running.delete(planId);
    else this.running.set(planId, count);
    const next = this.waiting.get(planId)?.shift();
    if (this.waiting.get(planId)?.length === 0) this.waiting.delete(planId);
    next?.();
  }
}

/**
 * The `planStep` node (PLAN-8 on the engine): the plan's author runs the step as a system turn in
 * the plan's own conversation, tagged with the step (`planStep`, so `delegate_task` and the Tasks
 * panel see it), and the node ends with the agent run: completed → done, cancelled (by the engine or
 * by whoever stopped the run) → cancelled, anything else → failed. A cancelled step settles only once
 * its agent run has really stopped (`settlesOnAbort`): cancelling a plan stops its runs.
 */
export function registerPlanStepExecutor(engine: PipelineEngine, deps: PlanStepExecutorDeps): void {
  const slots = new PlanStepSlots();
  engine.registerExecutor('planStep', async (execution: NodeExecution) => {
    const node = execution.node as PlanStepNode;
    const agent = await deps.agents.get(execution.workspaceId, node.agentId).catch(() => null);
    if (!agent) throw new PermanentNodeError('the agent that wrote this plan no longer exists');
    // Waiting for a sibling step to finish must not hold one of the engine's node slots.
    await slots.acquire(node.planId, async () => (await deps.settings.get(execution.workspaceId)).maxConcurrentRuns, execution.signal, () => execution.yieldSlot());
    try {
      let finish!: (run: Run) => void;
      const finished = new Promise<Run>((resolve) => (finish = resolve));
      const run = await deps.turns.startSystemTurn(execution.workspaceId, {
        agent,
        conversationId: node.conversationId,
        spaceId: node.spaceId,
        text: node.prompt,
        planStep: { planId: node.planId, key: node.key },
        onFinished: (ended) => finish(ended),
      });
      const cancel = () => deps.executor().cancel(run.id);
      // The node may have been cancelled while the turn was starting: the run it started stops too.
      if (execution.signal.aborted) cancel();
      else execution.signal.addEventListener('abort', cancel, { once: true });
      try {
        await execution.recordAgentRun(run.id);
        const ended = await finished;
        if (ended.state === 'completed') return { runId: ended.id };
        if (ended.state === 'cancelled') throw new CancelledNodeError(ended.error ?? `run ${ended.id} was cancelled`);
        throw new Error(ended.error ?? `run ${ended.id} ${ended.state}`);
      } finally {
        execution.signal.removeEventListener('abort', cancel);
      }
    } finally {
      slots.release(node.planId);
    }
  }, { settlesOnAbort: true });
}
