import type { Run, RunTreeNode } from '../api/types';

/**
 * Cost and time of runs (HAR-6, PLAN-3): what actually happened, read from the run log's numbers.
 * Estimates come only from a plan's `costEstimate`; where there is none the UI says so rather than
 * inventing one.
 */

/** How long a run took (start to end), or null while it has not both started and ended. */
export function runDurationMs(run: Pick<Run, 'startedAt' | 'endedAt'>): number | null {
  if (!run.startedAt || !run.endedAt) return null;
  const ms = Date.parse(run.endedAt) - Date.parse(run.startedAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** "850 ms", "12 s", "3 min 4 s", "1 h 2 min". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

export interface Totals {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  runs: number;
}

export const ZERO_TOTALS: Totals = { costUsd: 0, inputTokens: 0, outputTokens: 0, durationMs: 0, runs: 0 };

/** Adds one run's numbers to a total (its own only, not its children's). */
export function addRun(totals: Totals, run: Pick<Run, 'costUsd' | 'usage' | 'startedAt' | 'endedAt'>): Totals {
  return {
    costUsd: totals.costUsd + run.costUsd,
    inputTokens: totals.inputTokens + run.usage.inputTokens,
    outputTokens: totals.outputTokens + run.usage.outputTokens,
    durationMs: totals.durationMs + (runDurationMs(run) ?? 0),
    runs: totals.runs + 1,
  };
}

/** A run with every subagent and delegate run under it: cost and tokens of all of them; time of the top run. */
export function subtreeTotals(node: RunTreeNode): Totals {
  const own = addRun(ZERO_TOTALS, node);
  return node.children.reduce((sum, child) => {
    const inner = subtreeTotals(child);
    return { ...sum, costUsd: sum.costUsd + inner.costUsd, inputTokens: sum.inputTokens + inner.inputTokens, outputTokens: sum.outputTokens + inner.outputTokens, runs: sum.runs + inner.runs };
  }, own);
}

/** Every node of a run tree by id (turns and nested runs). */
export function indexRunTree(roots: RunTreeNode[]): Map<string, RunTreeNode> {
  const index = new Map<string, RunTreeNode>();
  const visit = (node: RunTreeNode) => {
    index.set(node.id, node);
    node.children.forEach(visit);
  };
  roots.forEach(visit);
  return index;
}
