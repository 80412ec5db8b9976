/** Every kind of problem the proposal validator reports (ORC-1). Codes are stable: clients match on them. */
export const ORCHESTRATION_VIOLATION_CODES = [
  'empty_goal',
  'role_count',
  'sub_ticket_count',
  'empty_role_key',
  'duplicate_role_key',
  'role_assignment',
  'unknown_agent',
  'empty_hire_name',
  'duplicate_hire_name',
  'invalid_key',
  'reserved_key',
  'duplicate_key',
  'empty_title',
  'unknown_role',
  'dangling_dependency',
  'self_dependency',
  'duplicate_dependency',
  'cycle',
  'empty_prompt',
  'synthesis_schema',
  'budget',
  'too_long',
] as const;

export type OrchestrationViolationCode = (typeof ORCHESTRATION_VIOLATION_CODES)[number];

/**
 * One reason a proposal cannot be accepted. `message` is written for the model that proposed it;
 * `field` is a dotted path into the proposal (`roles.2.agentId`, `subTickets.0.dependsOn.1`).
 */
export interface OrchestrationViolation {
  readonly code: OrchestrationViolationCode;
  readonly field: string;
  readonly message: string;
  /** For `cycle`: the sub-ticket keys around the loop, first repeated at the end. */
  readonly path?: readonly string[];
}

/** Renders violations as the tool error the model reads: every one, numbered, with its field. */
export function formatOrchestrationViolations(violations: readonly OrchestrationViolation[]): string {
  const lines = violations.map((violation, index) => `${index + 1}. [${violation.code} at ${violation.field}] ${violation.message}`);
  return [
    `The proposal was not accepted: ${violations.length} problem${violations.length === 1 ? '' : 's'} to fix.`,
    ...lines,
    'Fix all of them and call propose_orchestration again with the complete corrected proposal.',
  ].join('\n');
}
