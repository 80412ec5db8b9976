import type { PlanBlueprint } from './plan-blueprint.js';
import { UnknownPlanNodeError } from './unknown-plan-node-error.js';

/**
 * Execution state of one plan step (PLAN-8). `pending` and `ready` have not started; `running` is in
 * flight; `done`, `failed`, `cancelled` and `blocked` are settled. `blocked` means a prerequisite failed
 * or was cancelled, so the step can never start.
 */
export const PLAN_NODE_STATES = ['pending', 'ready', 'running', 'done', 'failed', 'cancelled', 'blocked'] as const;

export type PlanNodeState = (typeof PLAN_NODE_STATES)[number];

/** States that count towards `settled` in the `settled/total` progress of a plan's row (PLAN-8). */
export const SETTLED_PLAN_NODE_STATES: readonly PlanNodeState[] = ['done', 'failed', 'cancelled', 'blocked'];

/**
 * Step states by key. A Map, or a plain record as stored in JSON (read with own-property checks, so a
 * step keyed `__proto__` or `constructor` is safe). A step missing from it is `pending`.
 */
export type PlanNodeStates = ReadonlyMap<string, PlanNodeState> | Readonly<Record<string, PlanNodeState>>;

/** The counts behind a plan's progress display (PLAN-8). */
export interface PlanProgress {
  readonly settled: number;
  readonly total: number;
  readonly counts: Readonly<Record<PlanNodeState, number>>;
}

/** Result of {@link propagateFailure}: every step's state afterwards, and the keys newly blocked. */
export interface FailurePropagation {
  readonly states: Map<string, PlanNodeState>;
  /** Keys that went from not-started to `blocked`, in ticket (topological) order. */
  readonly blocked: readonly string[];
}

type Blueprint = Pick<PlanBlueprint, 'tickets'>;

function isStateMap(states: PlanNodeStates): states is ReadonlyMap<string, PlanNodeState> {
  return states instanceof Map;
}

/** The state of one step; `pending` when the states say nothing about it. */
export function planNodeState(states: PlanNodeStates, key: string): PlanNodeState {
  if (isStateMap(states)) return states.get(key) ?? 'pending';
  return Object.hasOwn(states, key) ? (states as Readonly<Record<string, PlanNodeState>>)[key]! : 'pending';
}

function isNotStarted(state: PlanNodeState): boolean {
  return state === 'pending' || state === 'ready';
}

function isSettled(state: PlanNodeState): boolean {
  return state === 'done' || state === 'failed' || state === 'cancelled' || state === 'blocked';
}

/**
 * Steps that may start now (PLAN-8): not started (`pending` or `ready`) and every dependency `done`.
 * Returned in ticket order, so a scheduler that starts them front to back follows the compiled order;
 * independent steps may all run in parallel.
 */
export function readyNodes(blueprint: Blueprint, states: PlanNodeStates): string[] {
  return blueprint.tickets
    .filter((ticket) => isNotStarted(planNodeState(states, ticket.key)) && ticket.dependsOn.every((dependency) => planNodeState(states, dependency) === 'done'))
    .map((ticket) => ticket.key);
}

/**
 * Records that a step ended without success (PLAN-8) and blocks everything downstream of it: every
 * step that depends on it, directly or transitively, and has not started becomes `blocked`. The step
 * itself becomes `failed`, unless it is already `cancelled` (a cancelled step blocks its dependents the
 * same way and keeps its state). Steps already running or settled keep their state. Does not modify
 * `states`. Throws {@link UnknownPlanNodeError} for a key the blueprint does not hold.
 */
export function propagateFailure(blueprint: Blueprint, states: PlanNodeStates, failedKey: string): FailurePropagation {
  const next = new Map<string, PlanNodeState>();
  const dependentsOf = new Map<string, string[]>();
  for (const ticket of blueprint.tickets) {
    next.set(ticket.key, planNodeState(states, ticket.key));
    for (const dependency of ticket.dependsOn) {
      const list = dependentsOf.get(dependency);
      if (list) list.push(ticket.key);
      else dependentsOf.set(dependency, [ticket.key]);
    }
  }
  if (!next.has(failedKey)) throw new UnknownPlanNodeError(failedKey);
  if (next.get(failedKey) !== 'cancelled') next.set(failedKey, 'failed');

  const reached = new Set<string>([failedKey]);
  const queue = [failedKey];
  for (let head = 0; head < queue.length; head += 1) {
    for (const dependent of dependentsOf.get(queue[head]!) ?? []) {
      if (reached.has(dependent)) continue;
      reached.add(dependent);
      queue.push(dependent);
    }
  }
  const blocked: string[] = [];
  for (const ticket of blueprint.tickets) {
    if (ticket.key === failedKey || !reached.has(ticket.key) || !isNotStarted(next.get(ticket.key)!)) continue;
    next.set(ticket.key, 'blocked');
    blocked.push(ticket.key);
  }
  return { states: next, blocked };
}

/** Counts per state plus `settled` (done + failed + cancelled + blocked) out of `total` (PLAN-8). */
export function planProgress(blueprint: Blueprint, states: PlanNodeStates): PlanProgress {
  const counts = Object.fromEntries(PLAN_NODE_STATES.map((state) => [state, 0])) as Record<PlanNodeState, number>;
  for (const ticket of blueprint.tickets) counts[planNodeState(states, ticket.key)] += 1;
  const settled = counts.done + counts.failed + counts.cancelled + counts.blocked;
  return { settled, total: blueprint.tickets.length, counts };
}

/** Number of settled steps, the numerator of the `settled/total` shown on the plan's row (PLAN-8). */
export function settledCount(blueprint: Blueprint, states: PlanNodeStates): number {
  let settled = 0;
  for (const ticket of blueprint.tickets) if (isSettled(planNodeState(states, ticket.key))) settled += 1;
  return settled;
}

/** True once every step is settled: nothing runs and nothing can start any more (PLAN-8). */
export function isFinished(blueprint: Blueprint, states: PlanNodeStates): boolean {
  return blueprint.tickets.every((ticket) => isSettled(planNodeState(states, ticket.key)));
}
