/**
 * A model's list price per million tokens (PLAN-3, Plan Studio's cost estimate). Either side null, or
 * the whole pricing null, means the price is unknown and the estimate carries tokens but no dollars.
 */
export interface ModelPricing {
  readonly inputPerMillion: number | null;
  readonly outputPerMillion: number | null;
}

/** Token usage of one past run of the agent (HAR-6's run log). */
export interface RunTokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What one step is expected to consume; null figures are unknown (no run history, or no price). */
export interface NodeCostEstimate {
  readonly key: string;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly usd: number | null;
}

/**
 * Where an estimate comes from: the agent's own run history, or nothing — then every figure is null
 * (TRUTH-3: a number shown to a person rests on evidence; an invented per-step default is not).
 */
export type PlanEstimateBasis = 'history' | 'noHistory';

/** Plan Studio's cost estimate (PLAN-3): per step and in total, and whether it rests on history. */
export interface PlanCostEstimate {
  readonly perNode: readonly NodeCostEstimate[];
  readonly total: { readonly inputTokens: number | null; readonly outputTokens: number | null; readonly usd: number | null };
  readonly basis: PlanEstimateBasis;
  /** Usable past runs the estimate rests on (fewer than {@link MIN_HISTORY_RUNS}: basis `noHistory`). */
  readonly historyRuns: number;
  readonly currency: 'USD';
}

/** Runs of history needed before an estimate is given: one or two runs are anecdotes. */
export const MIN_HISTORY_RUNS = 3;
/** Description length (characters, trimmed) of a "typical" step, for which the complexity factor is 1. */
export const TYPICAL_DESCRIPTION_LENGTH = 500;
/** Bounds of the complexity factor: a terse step still costs something; a long one is not unbounded. */
export const MIN_COMPLEXITY_FACTOR = 0.5;
export const MAX_COMPLEXITY_FACTOR = 3;

/**
 * How much more (or less) work a step looks than a typical one, judged by its description:
 * `clamp(0.5 + L / 1000, 0.5, 3)` with L the trimmed description length in characters. A 500-character
 * description scores 1, an empty one 0.5, and 2,500 characters or more cap at 3. Crude on purpose: the
 * description is the only signal available before the step runs, and a formula a user can redo in their
 * head is worth more than false precision.
 */
export function complexityFactor(description: string): number {
  const length = description.trim().length;
  const factor = MIN_COMPLEXITY_FACTOR + length / (2 * TYPICAL_DESCRIPTION_LENGTH);
  return Math.min(MAX_COMPLEXITY_FACTOR, Math.max(MIN_COMPLEXITY_FACTOR, factor));
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function usable(run: RunTokenUsage): boolean {
  return Number.isFinite(run.inputTokens) && Number.isFinite(run.outputTokens) && run.inputTokens >= 0 && run.outputTokens >= 0;
}

function isPriced(pricing: ModelPricing | null): pricing is { inputPerMillion: number; outputPerMillion: number } {
  return pricing !== null && pricing.inputPerMillion !== null && pricing.outputPerMillion !== null;
}

function priceOf(inputTokens: number, outputTokens: number, pricing: ModelPricing | null): number | null {
  if (!isPriced(pricing)) return null;
  return (inputTokens * pricing.inputPerMillion + outputTokens * pricing.outputPerMillion) / 1_000_000;
}

/** Dollars rounded to a millionth: stable JSON, and finer than any price shown. */
function roundUsd(usd: number | null): number | null {
  return usd === null ? null : Math.round(usd * 1_000_000) / 1_000_000;
}

/**
 * Estimates what running a plan will cost (PLAN-3). With fewer than 3 usable past runs of the agent
 * the estimate is unknown (basis `noHistory`, every figure null). Otherwise, per step:
 *
 *   baseline = median input/output tokens of the agent's past runs (basis `history`);
 *   tokens   = round(baseline × complexityFactor(description))   — see {@link complexityFactor};
 *   usd      = (inputTokens × inputPerMillion + outputTokens × outputPerMillion) / 1,000,000,
 *              null when the model's pricing is unknown.
 *
 * Totals are sums over steps (usd summed before rounding; each figure rounded to a millionth of a
 * dollar). Runs with negative or non-finite counts are ignored. Accepts a compiled blueprint's tickets
 * or a submission's nodes alike.
 */
export function estimatePlanCost(
  nodes: readonly { readonly key: string; readonly description: string }[],
  pricing: ModelPricing | null,
  history: readonly RunTokenUsage[],
): PlanCostEstimate {
  const runs = history.filter(usable);
  if (runs.length < MIN_HISTORY_RUNS) {
    return {
      perNode: nodes.map((node) => ({ key: node.key, inputTokens: null, outputTokens: null, usd: null })),
      total: { inputTokens: null, outputTokens: null, usd: null },
      basis: 'noHistory',
      historyRuns: runs.length,
      currency: 'USD',
    };
  }
  const baseInput = medianOf(runs.map((run) => run.inputTokens));
  const baseOutput = medianOf(runs.map((run) => run.outputTokens));

  let totalInput = 0;
  let totalOutput = 0;
  let totalUsd = 0;
  const perNode = nodes.map((node): NodeCostEstimate => {
    const factor = complexityFactor(node.description);
    const inputTokens = Math.round(baseInput * factor);
    const outputTokens = Math.round(baseOutput * factor);
    const usd = priceOf(inputTokens, outputTokens, pricing);
    totalInput += inputTokens;
    totalOutput += outputTokens;
    if (usd !== null) totalUsd += usd;
    return { key: node.key, inputTokens, outputTokens, usd: roundUsd(usd) };
  });
  return {
    perNode,
    total: { inputTokens: totalInput, outputTokens: totalOutput, usd: isPriced(pricing) ? roundUsd(totalUsd) : null },
    basis: 'history',
    historyRuns: runs.length,
    currency: 'USD',
  };
}
