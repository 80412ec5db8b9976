import { inspectPlanGraph } from './inspect-plan-graph.js';
import type { PlanSubmission } from './plan-graph.js';
import type { PlanViolation } from './plan-violation.js';

/**
 * Validates a submitted plan (PLAN-2) and returns every violation at once, so the model can fix the
 * whole plan in one round instead of discovering problems one by one. An empty array means the plan is
 * valid and {@link compilePlan} will accept it.
 *
 * Checked: a non-blank goal; at least one step; per step a non-blank key of letters, digits, `_`, `-`,
 * `.` (at most 100 characters), unique across the plan, and a non-blank title; per dependency entry that
 * it is not a repeat of an earlier entry, not the step itself, and names an existing step; and that the
 * graph has no cycle. Violations come in a fixed order: goal, steps, then per step its key, title and
 * dependency entries in index order, then cycles by their lowest step index.
 *
 * Where a key is duplicated, dependencies on it resolve to its first occurrence and the later
 * occurrences' own dependencies are checked entry by entry but left out of cycle detection: a cycle
 * through a step that has to be renamed anyway would only confuse the report.
 *
 * Linear time in steps plus dependency entries, with no recursion (see {@link findDependencyCycles}).
 */
export function validatePlanGraph(plan: PlanSubmission): PlanViolation[] {
  return inspectPlanGraph(plan).violations;
}
