import type { PipelineNode } from '../pipelines/pipeline-definition.js';
import { estimateRole } from './role-estimate.js';

/**
 * What one node of an orchestration's run is expected to cost before it starts (ORC-2, ORC-4):
 * - `free`: the node starts no model run (a condition, a gate, a script, a room);
 * - `band`: the agent's own run history, as {@link estimateRole} computes it for one work item;
 * - `unknown`: no history to go on (a hire, fewer than three priced runs, a manager who may delegate) —
 *   never an invented number.
 */
export type NodeCostEstimate =
  | { readonly kind: 'free' }
  | { readonly kind: 'band'; readonly lowUsd: number; readonly medianUsd: number; readonly highUsd: number; readonly runs: number }
  | { readonly kind: 'unknown'; readonly reason: string };

/**
 * The node's estimate from the priced history of the agents it will run (`costsOf(agentId)`, newest
 * first). `team.dispatch` in `allParallel` sums its members' bands (one unknown member makes it
 * unknown); in `manager` mode it is unknown — the manager's delegations are open-ended.
 */
export function estimateNodeCost(
  node: PipelineNode,
  costsOf: (agentId: string) => readonly number[],
  teamMembers: readonly string[] | null = null,
): NodeCostEstimate {
  if (node.type === 'team.dispatch') {
    if (node.strategy === 'manager') return { kind: 'unknown', reason: 'a manager may delegate any amount of work' };
    if (!teamMembers || teamMembers.length === 0) return { kind: 'unknown', reason: `team ${node.teamId} has no known members` };
    const bands = teamMembers.map((agentId) => agentBand(agentId, costsOf(agentId)));
    const unknown = bands.find((band) => band.kind === 'unknown');
    if (unknown) return unknown;
    const known = bands as Array<Extract<NodeCostEstimate, { kind: 'band' }>>;
    const sum = (pick: (band: Extract<NodeCostEstimate, { kind: 'band' }>) => number) => known.reduce((total, band) => total + pick(band), 0);
    return { kind: 'band', lowUsd: sum((band) => band.lowUsd), medianUsd: sum((band) => band.medianUsd), highUsd: sum((band) => band.highUsd), runs: Math.min(...known.map((band) => band.runs)) };
  }
  switch (node.type) {
    case 'promptAgent':
    case 'ticketWork':
    case 'synthesis':
    case 'planStep':
      // Plan runs never ask a budget gate today; should one, a step costs what its planner's runs cost.
      return agentBand(node.agentId, costsOf(node.agentId));
    case 'condition':
    case 'human.gate':
    case 'bashScript':
    case 'messaging.createSpace':
      return { kind: 'free' };
    default: {
      // A new node type must say here what it costs; until then it is unknown, never free.
      const unhandled: never = node;
      return { kind: 'unknown', reason: `node type ${(unhandled as PipelineNode).type} has no estimate` };
    }
  }
}

function agentBand(agentId: string, costs: readonly number[]): NodeCostEstimate {
  const estimate = estimateRole({ hire: false, pastRunCostsUsd: costs, workItems: 1 });
  if (estimate.kind === 'unknown') return { kind: 'unknown', reason: `agent ${agentId}: ${estimate.reason}` };
  return { kind: 'band', lowUsd: estimate.lowUsd, medianUsd: estimate.medianUsd, highUsd: estimate.highUsd, runs: estimate.runs };
}

/** A node of the orchestration that was admitted and has not finished: what it holds of the budget. */
export interface BudgetReservation {
  readonly nodeKey: string;
  readonly reservedUsd: number;
}

/**
 * The gate's verdict for one node: `admit` (holding `reserveUsd` until it finishes), `wait` (other
 * nodes in flight hold the budget; asked again when one finishes — no operator needed) or `pause`
 * (this node alone would pass the cap: the operator raises it or cancels).
 */
export type BudgetAdmission =
  | { readonly verdict: 'admit'; readonly reserveUsd: number }
  | { readonly verdict: 'wait'; readonly reason: string }
  | { readonly verdict: 'pause'; readonly reason: string };

const usd = (value: number): string => `$${value.toFixed(value > 0 && value < 0.01 ? 6 : 2)}`;

/**
 * ORC-4's admission rule, so nodes started in parallel cannot pass `maxUsd` by their own cost:
 * a node starts only when spend + what the nodes in flight reserved + its own estimate stays within
 * the cap. The estimate is the high end (p90) of the agent's band. A node whose cost is unknown
 * reserves everything that is left: it runs alone, once nothing else is in flight — the most
 * conservative rule without an invented number, which bounds an overshoot by that one node's cost.
 * Once the spend has reached the cap nothing starts (the operator decides).
 */
export function admitNode(input: {
  nodeKey: string;
  spentUsd: number;
  maxUsd: number;
  inFlight: readonly BudgetReservation[];
  estimate: NodeCostEstimate;
}): BudgetAdmission {
  const { nodeKey, spentUsd, maxUsd, estimate } = input;
  if (spentUsd >= maxUsd) return { verdict: 'pause', reason: `${usd(spentUsd)} spent has reached the cap of ${usd(maxUsd)}` };
  // A retried attempt of a node asks again; it does not compete with its own reservation.
  const others = input.inFlight.filter((reservation) => reservation.nodeKey !== nodeKey);
  const reserved = others.reduce((total, reservation) => total + reservation.reservedUsd, 0);
  const running = others.map((reservation) => reservation.nodeKey).join(', ');
  if (estimate.kind === 'free') return { verdict: 'admit', reserveUsd: 0 };
  if (estimate.kind === 'unknown') {
    if (others.length > 0) {
      return { verdict: 'wait', reason: `node ${nodeKey}'s cost is unknown (${estimate.reason}), so it runs alone: held by the budget until ${running} finish (no action needed)` };
    }
    return { verdict: 'admit', reserveUsd: maxUsd - spentUsd };
  }
  const need = estimate.highUsd;
  if (spentUsd + reserved + need <= maxUsd) return { verdict: 'admit', reserveUsd: need };
  if (others.length > 0) {
    return {
      verdict: 'wait',
      reason: `node ${nodeKey} is estimated at up to ${usd(need)}; with ${usd(spentUsd)} spent and ${usd(reserved)} held by ${running} it would exceed its cap of ${usd(maxUsd)}: held by the budget until they finish (no action needed)`,
    };
  }
  return { verdict: 'pause', reason: `node ${nodeKey} is estimated at up to ${usd(need)}; with ${usd(spentUsd)} spent it would exceed its cap of ${usd(maxUsd)}` };
}
