import { validateEffort } from '../../llm/model-catalog.js';

/**
 * AG-1: `effort` comes from the chosen model's own vocabulary. An agent without a model runs on the
 * default Anthropic model (AG-6), so its effort is checked against that model's words.
 */
export function validateAgentEffort(modelId: string | null, _adapterId: string | null, effort: string): string | null {
  return validateEffort({ modelId }, effort);
}
