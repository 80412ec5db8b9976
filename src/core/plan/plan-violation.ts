/** Every kind of problem {@link validatePlanGraph} reports (PLAN-2). Codes are stable: clients match on them. */
export const PLAN_VIOLATION_CODES = [
  'empty_goal',
  'no_nodes',
  'empty_key',
  'invalid_key',
  'duplicate_key',
  'empty_title',
  'dangling_dependency',
  'self_dependency',
  'duplicate_dependency',
  'cycle',
] as const;

export type PlanViolationCode = (typeof PLAN_VIOLATION_CODES)[number];

/**
 * One reason a submitted plan cannot be accepted (PLAN-2). `message` is written for the model that
 * wrote the plan: it names the step, says what is wrong and how to fix it. `field` is a dotted path into
 * the submission (`goal`, `nodes`, `nodes.3.key`, `nodes.3.dependsOn.1`) so a UI can point at it.
 */
export interface PlanViolation {
  readonly code: PlanViolationCode;
  readonly message: string;
  /** Key of the step at fault, when it has a non-blank key. */
  readonly nodeKey?: string;
  readonly field: string;
  /**
   * For `cycle` only: the steps around the loop, first key repeated at the end
   * (`['a', 'b', 'c', 'a']`: a depends on b, b on c, c on a).
   */
  readonly path?: readonly string[];
}
