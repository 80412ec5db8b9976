import type { PlanCostEstimate as CoreEstimate } from '../../core/plan/estimate-plan-cost.js';
import { UNKNOWN_ESTIMATE_REASONS, type PlanCostEstimate } from '../../schemas/plan.js';

/**
 * A computed estimate as the API shows it: why its dollars are unknown, if they are, and not frozen.
 * TRUTH-3: unknown stays unknown — no history means no figures, not "$0.00".
 */
export function liveEstimate(estimate: CoreEstimate): PlanCostEstimate {
  const unknownReason = estimate.basis === 'noHistory' ? UNKNOWN_ESTIMATE_REASONS.noHistory : estimate.total.usd === null ? UNKNOWN_ESTIMATE_REASONS.noPrice : null;
  return {
    perNode: estimate.perNode.map((node) => ({ ...node })),
    total: { ...estimate.total },
    basis: estimate.basis,
    historyRuns: estimate.historyRuns,
    unknownReason,
    frozenAt: null,
    currency: estimate.currency,
  };
}

/** The estimate as approved: the same figures, stamped with the approval's time. */
export function freezeEstimate(estimate: PlanCostEstimate, at: string): PlanCostEstimate {
  return { ...estimate, frozenAt: at };
}

/**
 * What a plan approved before estimates were kept with the approval shows: unknown. Recomputing one
 * now would show a figure nobody approved.
 */
export function notRecordedEstimate(nodeKeys: readonly string[], approvedAt: string | null): PlanCostEstimate {
  return {
    perNode: nodeKeys.map((key) => ({ key, inputTokens: null, outputTokens: null, usd: null })),
    total: { inputTokens: null, outputTokens: null, usd: null },
    basis: 'notRecorded',
    historyRuns: 0,
    unknownReason: UNKNOWN_ESTIMATE_REASONS.notRecorded,
    frozenAt: approvedAt,
    currency: 'USD',
  };
}
