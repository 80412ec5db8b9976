/**
 * AG-1: `effort` comes from the chosen model's own vocabulary. Until a model catalog says
 * otherwise, the generic reasoning-effort words are accepted.
 */
export const GENERIC_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

export function validateEffortGeneric(_modelId: string | null, _adapterId: string | null, effort: string): string | null {
  return (GENERIC_EFFORTS as readonly string[]).includes(effort)
    ? null
    : `must be one of ${GENERIC_EFFORTS.join(', ')} for this model`;
}
