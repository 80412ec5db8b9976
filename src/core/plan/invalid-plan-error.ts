import type { PlanViolation } from './plan-violation.js';

/**
 * Raised when an invalid plan reaches compilation (PLAN-7). Approval is disabled while a plan has a
 * validation error, so this signals a caller bug or a plan edited after validation: refuse, don't guess.
 */
export class InvalidPlanError extends Error {
  readonly code = 'INVALID_PLAN';

  constructor(readonly violations: readonly PlanViolation[]) {
    super(`invalid plan (${violations.length} violation${violations.length === 1 ? '' : 's'}): ${violations.map((violation) => violation.message).slice(0, 5).join(' ')}`);
    this.name = 'InvalidPlanError';
  }
}
