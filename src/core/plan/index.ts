export type { PlanSubmission, PlanNodeInput } from './plan-graph.js';
export { PLAN_KEY_MAX_LENGTH, PLAN_KEY_PATTERN, isValidPlanKey } from './plan-key.js';
export { PLAN_VIOLATION_CODES, type PlanViolation, type PlanViolationCode } from './plan-violation.js';
export { validatePlanGraph } from './validate-plan-graph.js';
export { formatPlanViolations, MAX_LISTED_VIOLATIONS } from './format-plan-violations.js';
export { findDependencyCycles, type CompactGraph, type DependencyCycle } from './dependency-cycles.js';
export type { PlanBlueprint, PlanTicket, PlanEdge } from './plan-blueprint.js';
export { compilePlan } from './compile-plan.js';
export { InvalidPlanError } from './invalid-plan-error.js';
export { UnknownPlanNodeError } from './unknown-plan-node-error.js';
export {
  PLAN_NODE_STATES,
  SETTLED_PLAN_NODE_STATES,
  planNodeState,
  readyNodes,
  propagateFailure,
  planProgress,
  settledCount,
  isFinished,
  type PlanNodeState,
  type PlanNodeStates,
  type PlanProgress,
  type FailurePropagation,
} from './plan-progress.js';
export {
  estimatePlanCost,
  complexityFactor,
  MIN_HISTORY_RUNS,
  TYPICAL_DESCRIPTION_LENGTH,
  MIN_COMPLEXITY_FACTOR,
  MAX_COMPLEXITY_FACTOR,
  type ModelPricing,
  type RunTokenUsage,
  type NodeCostEstimate,
  type PlanCostEstimate,
  type PlanEstimateBasis,
} from './estimate-plan-cost.js';
