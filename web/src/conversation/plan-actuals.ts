import { useMemo } from 'react';
import { useRunTree } from '../api/control-hooks';
import type { Plan, RunTreeNode } from '../api/types';
import { indexRunTree, runDurationMs, subtreeTotals, ZERO_TOTALS, type Totals } from '../ui/cost-time';

export interface StepActual {
  run: RunTreeNode;
  /** The step's run with every run it started. */
  totals: Totals;
  durationMs: number | null;
}

export interface PlanActuals {
  perNode: Map<string, StepActual>;
  /** Every step run so far (with nested runs): cost and tokens summed, time = the steps' run times summed. */
  total: Totals;
}

/** What a plan's steps actually cost and took (PLAN-3, HAR-6), from the runs the steps ran as. */
export function planActuals(plan: Plan, index: Map<string, RunTreeNode>): PlanActuals {
  const perNode = new Map<string, StepActual>();
  let total = ZERO_TOTALS;
  for (const node of plan.nodes) {
    const run = node.runId ? index.get(node.runId) : undefined;
    if (!run) continue;
    const totals = subtreeTotals(run);
    perNode.set(node.key, { run, totals, durationMs: runDurationMs(run) });
    total = { ...total, costUsd: total.costUsd + totals.costUsd, inputTokens: total.inputTokens + totals.inputTokens, outputTokens: total.outputTokens + totals.outputTokens, durationMs: total.durationMs + totals.durationMs, runs: total.runs + totals.runs };
  }
  return { perNode, total };
}

/** The plan's actuals, kept current by the run tree's live invalidation. */
export function usePlanActuals(ws: string, plan: Plan): PlanActuals {
  const tree = useRunTree(ws, plan.conversationId);
  return useMemo(() => planActuals(plan, indexRunTree(tree.data?.runs ?? [])), [plan, tree.data]);
}
