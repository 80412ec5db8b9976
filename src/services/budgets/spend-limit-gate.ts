import type { RecordedModelCall } from '../../adapters/agent-transport.js';
import type { WireProtocol } from '../../llm/model-catalog.js';
import type { EventBus } from '../event-bus.js';
import type { ActiveRuns } from '../runs/active-runs.js';
import type { BudgetService } from './budget-service.js';
import { spendLimitRefusal, type SpendLimitRefusal } from './spend-limit-refusal.js';

/** The run a model call is for. */
export interface SpendingRun {
  workspaceId: string;
  runId: string;
  agentId: string;
}

/**
 * BUD-1: the spend-limit check before every model call, on every transport.
 * - In the built-in loop ({@link beforeModelCall}): a run at a limit is paused (the run-control pause
 *   every operator already knows) with a budget decision in the Inbox, and waits for it; raising the
 *   limit resumes it, stopping cancels it. It checks again after every wake-up: a plain "resume"
 *   without a decision finds the limit still reached and waits again.
 * - At the model proxy ({@link refusalAtProxy}): an external runner's call over the limit is answered
 *   with the provider's own error, whatever the runtime would do next, and the decision waits in the
 *   Inbox all the same.
 */
export class SpendLimitGate {
  constructor(
    private readonly budgets: BudgetService,
    private readonly active: ActiveRuns,
    private readonly events: EventBus,
  ) {}

  async beforeModelCall(run: SpendingRun, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) return;
      const reached = await this.budgets.reached(run.workspaceId, run.agentId);
      if (!reached) return;
      const active = this.active.get(run.runId);
      if (!active) return;
      await this.budgets.openDecision(run.workspaceId, run.runId, reached, { waits: true });
      if (!active.paused) {
        active.paused = true;
        this.events.publish(run.workspaceId, 'run.paused', { runId: run.runId });
      }
      try {
        await this.active.waitWhilePaused(run.runId, signal);
      } finally {
        if (signal.aborted) this.budgets.forgetRun(run.runId);
      }
    }
  }

  /** Records one model call's spend for the run (tokens by kind, cost) and moves the running totals. */
  record(run: SpendingRun, call: RecordedModelCall): Promise<void> {
    return this.budgets.record(run.workspaceId, { runId: run.runId, agentId: run.agentId, ...call });
  }

  /** The provider-shaped refusal for an external runner's call over a limit, or null when it may go. */
  async refusalAtProxy(run: SpendingRun, protocol: WireProtocol): Promise<SpendLimitRefusal | null> {
    const reached = await this.budgets.reached(run.workspaceId, run.agentId);
    if (!reached) return null;
    const alert = await this.budgets.openDecision(run.workspaceId, run.runId, reached, { waits: false });
    const whose = reached.limit.agentId === null ? "the workspace's" : "this agent's";
    const message =
      `Spend limit reached: ${whose} ${reached.limit.period === 'day' ? 'daily' : 'monthly'} limit of ${reached.effectiveLimitUsd} USD ` +
      `(${reached.key}) has ${reached.spentUsd.toFixed(4)} USD spent. The model request was not sent; a budget decision (${alert.id}) waits in the Control Center Inbox.`;
    return spendLimitRefusal(protocol, message);
  }
}
