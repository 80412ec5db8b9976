/** Raised when a progress helper is asked about a step key the blueprint does not contain (PLAN-8). */
export class UnknownPlanNodeError extends Error {
  readonly code = 'UNKNOWN_PLAN_NODE';

  constructor(readonly nodeKey: string) {
    super(`plan has no step with key "${nodeKey}"`);
    this.name = 'UnknownPlanNodeError';
  }
}
