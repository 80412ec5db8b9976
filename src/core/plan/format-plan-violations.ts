import type { PlanViolation } from './plan-violation.js';

/** Most violations spelled out in one tool error; the rest are counted (the text lands in the model's context). */
export const MAX_LISTED_VIOLATIONS = 50;

/**
 * Renders violations as the `submit_plan` tool error the model reads (PLAN-2): one numbered line per
 * violation with its field path, capped at {@link MAX_LISTED_VIOLATIONS}, and an instruction to resubmit
 * the whole corrected plan.
 */
export function formatPlanViolations(violations: readonly PlanViolation[], limit = MAX_LISTED_VIOLATIONS): string {
  const count = violations.length;
  const lines = violations.slice(0, limit).map((violation, position) => `${position + 1}. [${violation.code} at ${violation.field}] ${violation.message}`);
  if (count > limit) lines.push(`… and ${count - limit} more violation${count - limit === 1 ? '' : 's'} not shown.`);
  return [
    `The plan was not accepted: ${count} problem${count === 1 ? '' : 's'} to fix.`,
    ...lines,
    'Fix all of them and call submit_plan again with the complete corrected plan.',
  ].join('\n');
}
