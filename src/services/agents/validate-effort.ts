import { validateEffort } from '../../llm/model-catalog.js';

/**
 * AG-1: `effort` comes from the chosen model's own vocabulary. The agent service passes the agent's
 * model, else the model its transport runs by default (TRUTH-1, `honours.effortDefaultModelId`); with
 * neither, the built-in harness's default Anthropic model (AG-6) is meant.
 */
export function validateAgentEffort(modelId: string | null, _adapterId: string | null, effort: string): string | null {
  return validateEffort({ modelId }, effort);
}
