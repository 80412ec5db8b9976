/** Longest accepted step key (PLAN-2): keys become ticket references and appear in every prompt. */
export const PLAN_KEY_MAX_LENGTH = 100;

/**
 * Characters a step key may use (PLAN-2): letters, digits, `_`, `-` and `.`. Keys are compared exactly
 * (case-sensitive); they travel into ticket references, URLs and log lines, so no spaces or quoting.
 */
export const PLAN_KEY_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** Whether a key satisfies the format rules of PLAN-2 (non-blank, allowed characters, length). */
export function isValidPlanKey(key: string): boolean {
  return key.length > 0 && key.length <= PLAN_KEY_MAX_LENGTH && PLAN_KEY_PATTERN.test(key);
}
