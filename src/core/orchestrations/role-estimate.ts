/** Priced runs needed before a role's history yields a band: one or two runs are anecdotes. */
export const MIN_PRICED_RUNS = 3;

/**
 * What one role of a proposal is expected to cost (ORC-2): a band from the role's agent's own run
 * history, or `unknown` — never an invented number (a hire has no history; neither has an agent with
 * fewer than {@link MIN_PRICED_RUNS} priced runs).
 */
export type RoleEstimate =
  | { readonly kind: 'band'; readonly lowUsd: number; readonly medianUsd: number; readonly highUsd: number; readonly runs: number; readonly workItems: number }
  | { readonly kind: 'unknown'; readonly reason: string; readonly runs: number; readonly workItems: number };

const round = (usd: number): number => Math.round(usd * 1_000_000) / 1_000_000;

function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/**
 * Band for `workItems` runs of the role (its sub-tickets, plus the synthesis or research it does): the
 * 10th, 50th and 90th percentile of the past runs' cost, each times `workItems`. Costs that are not
 * finite or negative are ignored.
 */
export function estimateRole(input: { hire: boolean; pastRunCostsUsd: readonly number[]; workItems: number }): RoleEstimate {
  const costs = input.pastRunCostsUsd.filter((cost) => Number.isFinite(cost) && cost >= 0).sort((a, b) => a - b);
  if (input.hire) return { kind: 'unknown', reason: 'a new hire has no run history', runs: 0, workItems: input.workItems };
  if (costs.length < MIN_PRICED_RUNS) {
    return { kind: 'unknown', reason: `the agent has ${costs.length} priced run(s); at least ${MIN_PRICED_RUNS} are needed`, runs: costs.length, workItems: input.workItems };
  }
  return {
    kind: 'band',
    lowUsd: round(quantile(costs, 0.1) * input.workItems),
    medianUsd: round(quantile(costs, 0.5) * input.workItems),
    highUsd: round(quantile(costs, 0.9) * input.workItems),
    runs: costs.length,
    workItems: input.workItems,
  };
}
