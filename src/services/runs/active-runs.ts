import type { TransportCapabilities } from '../../adapters/transport-capabilities.js';

/** In-memory control of runs in progress on the built-in harness (HAR-5): cancel, pause, steer. */
export interface ActiveRun {
  runId: string;
  workspaceId: string;
  agentId: string;
  conversationId: string | null;
  /** What the run's transport supports: the control routes refuse what it does not declare (409). */
  transport: TransportCapabilities;
  controller: AbortController;
  paused: boolean;
  steering: string[];
  /** Set when the turn stops reading steering text (it is ending): later text is refused, never dropped. */
  steeringClosed?: boolean;
  resumeWaiters: Array<() => void>;
  /** Resolves when the run has fully ended (state persisted). */
  finished: Promise<void>;
}

export class ActiveRuns {
  private readonly runs = new Map<string, ActiveRun>();

  add(run: ActiveRun): void {
    this.runs.set(run.runId, run);
  }

  remove(runId: string): void {
    this.runs.delete(runId);
  }

  get(runId: string): ActiveRun | undefined {
    return this.runs.get(runId);
  }

  inWorkspace(workspaceId: string): ActiveRun[] {
    return [...this.runs.values()].filter((run) => run.workspaceId === workspaceId);
  }

  all(): ActiveRun[] {
    return [...this.runs.values()];
  }

  /** Waits while the run is paused; returns at once when it is not (or when it is aborted). */
  async waitWhilePaused(runId: string, signal: AbortSignal): Promise<void> {
    const run = this.runs.get(runId);
    if (!run?.paused || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      run.resumeWaiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  resume(runId: string): void {
    const run = this.runs.get(runId);
    if (!run) return;
    run.paused = false;
    const waiters = run.resumeWaiters;
    run.resumeWaiters = [];
    for (const wake of waiters) wake();
  }
}
