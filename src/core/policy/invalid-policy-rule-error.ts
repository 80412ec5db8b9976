/** Raised when a rule store holds rules the engine cannot honour; refusing to compile is failing closed. */
export class InvalidPolicyRuleError extends Error {
  readonly code = 'INVALID_POLICY_RULE';

  constructor(readonly problems: readonly string[]) {
    super(`invalid policy rules: ${problems.join('; ')}`);
    this.name = 'InvalidPolicyRuleError';
  }
}
