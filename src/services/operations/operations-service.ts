import type { Kysely } from 'kysely';
import { RunState } from '../../schemas/run.js';
import type { RegistryStore } from '../../store/registry-store.js';
import { countJobsByStatus, countRunsByState, pingStore } from '../../store/repositories/operations-repository.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { LatencyHistogram } from '../cluster/latency-histogram.js';
import { processLatencies } from './process-latencies.js';

/** A line of the Prometheus text format: name, labels, value. */
interface Sample {
  labels: Record<string, string>;
  value: number;
}

/**
 * Operations (NF-SCALE): readiness — the store answers — and the Prometheus metrics an
 * operator scrapes: runs by state and pipeline-queue depth, per workspace, read from the store so
 * every process of a scaled-out deployment reports the same totals; and this process's own latency
 * histograms (turn acceptance, model calls, event lag), which Prometheus adds up across processes.
 */
export class OperationsService {
  constructor(
    private readonly registry: RegistryStore,
    private readonly workspaces: WorkspaceService,
    /** This process's commit-to-delivery lag of live events (PostgreSQL); absent when embedded. */
    private readonly eventLag: () => LatencyHistogram | null = () => null,
    /** On PostgreSQL the jobs are pg-boss's (pipeline nodes, runs, approval timeouts); absent: the embedded queue's table. */
    private readonly sharedJobCounts: () => ((workspaceId: string) => Promise<Array<{ queue: string; status: string; count: number }>>) | null = () => null,
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
      const countJobs = this.sharedJobCounts();
      for (const row of countJobs ? await countJobs(workspace.id) : await countJobsByStatus(db)) jobs.push({ labels: { workspace: workspace.id, queue: row.queue, status: row.status }, value: row.count });
    }
    return [
      ...family('control_center_runs', 'Runs by state, per workspace.', runs),
      ...family('control_center_queue_jobs', 'Jobs by queue (pipeline-nodes; on PostgreSQL also runs and approval-timeouts) and status (queue depth: status="queued"), per workspace.', jobs),
      ...eventLagFamilies(this.eventLag()),
      ...histogramFamily('control_center_turn_accept_seconds', 'Time this process took to accept a posted turn: the request reaching the route to its 202 (message and queued run recorded).', processLatencies.turnAccept),
      ...histogramFamily('control_center_model_call_seconds', "Duration of the model calls this process made or forwarded: the built-in harness's calls and the model proxy's, request to the answer's end.", processLatencies.modelCall),
    ].join('\n') + '\n';
  }
}

/**
 * How long a committed live event took to reach this process's subscribers, as a
 * Prometheus histogram (per process: each process measures what it delivers) plus its p50 and p99
 * read from the same buckets. Only on PostgreSQL: the embedded bus delivers in the publishing call.
 */
function eventLagFamilies(histogram: LatencyHistogram | null): string[] {
  if (!histogram) return [];
  const name = 'control_center_event_lag_seconds';
  const quantiles = [0.5, 0.99].map((q) => ({ labels: { quantile: String(q) }, value: histogram.quantile(q) }));
  return [
    ...histogramFamily(name, "Delay from a live event's commit to its delivery to this process's subscribers (SSE).", histogram),
    ...family('control_center_event_lag_quantile_seconds', 'p50 and p99 of control_center_event_lag_seconds in this process (NaN before the first event).', quantiles),
  ];
}

/** One histogram in the Prometheus text format: cumulative `_bucket` series, `_sum` and `_count`. */
function histogramFamily(name: string, help: string, histogram: LatencyHistogram): string[] {
  return [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} histogram`,
    ...histogram.cumulative().map((row) => `${name}_bucket{le="${row.le}"} ${row.count}`),
    `${name}_sum ${histogram.sumSeconds}`,
    `${name}_count ${histogram.count}`,
  ];
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
