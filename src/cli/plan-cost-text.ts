import type { Plan } from '../schemas/plan.js';

/** "$0.0017", "$12.50"; "?" for a run whose cost nobody knows. */
export const dollars = (usd: number | null): string => (usd === null ? '?' : `$${usd.toFixed(usd < 1 ? 4 : 2)}`);

/** The plan's estimate in words: a figure, or "unknown (<why>)" — never a made-up "$0.00" (TRUTH-3). */
export function estimateText(estimate: Plan['costEstimate']): string {
  return estimate.total.usd === null ? `unknown (${estimate.unknownReason ?? 'no estimate'})` : dollars(estimate.total.usd);
}

/** "estimated $0.2501 · spent $0.0020": the estimate (frozen once approved) with the recorded actual beside it. */
export function planCostText(plan: Plan): string {
  return `estimated ${estimateText(plan.costEstimate)} · spent ${dollars(plan.actualCost.usd)}`;
}
