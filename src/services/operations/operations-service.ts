import type { Kysely } from 'kysely';
import { RunState } from '../../schemas/run.js';
import type { RegistryStore } from '../../store/registry-store.js';
import { countJobsByStatus, countRunsByState, pingStore } from '../../store/repositories/operations-repository.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/** A line of the Prometheus text format: name, labels, value. */
interface Sample {
  labels: Record<string, string>;
  value: number;
}

/**
 * Operations (issue 16, NF-SCALE): readiness — the store answers — and the Prometheus metrics an
 * operator scrapes: runs by state and pipeline-queue depth, per workspace. Read from the store, so
 * every process of a scaled-out deployment reports the same totals.
 */
export class OperationsService {
  constructor(
    private readonly registry: RegistryStore,
    private readonly workspaces: WorkspaceService,
  ) {}

  /** Ready when the registry's store answers; the reason when it does not. */
  async readiness(): Promise<{ ready: true } | { ready: false; reason: string }> {
    try {
      await pingStore(this.registry.db as unknown as Kysely<never>);
      return { ready: true };
    } catch (error) {
      return { ready: false, reason: `the store does not answer: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** The metrics in Prometheus' text exposition format (version 0.0.4). */
  async metrics(): Promise<string> {
    const runs: Sample[] = [];
    const jobs: Sample[] = [];
    for (const workspace of await this.workspaces.list()) {
      const { db } = (await this.workspaces.handle(workspace.id)).database;
      const counted = new Map((await countRunsByState(db)).map((row) => [row.state, row.count]));
      // Every state, zeros included, so a gauge falls back to 0 instead of vanishing.
      for (const state of RunState.options) runs.push({ labels: { workspace: workspace.id, state }, value: counted.get(state) ?? 0 });
      for (const row of await countJobsByStatus(db)) jobs.push({ labels: { workspace: workspace.id, queue: row.queue, status: row.status }, value: row.count });
    }
    return [
      ...family('control_center_runs', 'Runs by state, per workspace.', runs),
      ...family('control_center_queue_jobs', 'Pipeline jobs by queue and status (queue depth: status="queued"), per workspace.', jobs),
    ].join('\n') + '\n';
  }
}

function family(name: string, help: string, samples: Sample[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...samples.map((sample) => `${name}{${labelText(sample.labels)}} ${sample.value}`)];
}

/** Label values escaped as the format requires (backslash, double quote, newline). */
function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}
