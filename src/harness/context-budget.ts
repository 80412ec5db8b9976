/** The window assumed for a model the catalogue does not know and the agent gives no `contextSize` for. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Room kept free besides the answer: the estimate's error and what the provider adds to a request. */
const MARGIN_SHARE = 0.05;
const MIN_MARGIN_TOKENS = 1_000;

export interface ContextBudgetInput {
  /** The agent's own limit (AG fields), when it sets one: it wins over the model's window. */
  contextSize: number | null | undefined;
  /** The model's window from the catalogue, when known. */
  contextWindow: number | undefined;
  /** The answer's `maxTokens`: the window must keep room for it. */
  maxTokens: number;
}

/**
 * CTX-1: how many input tokens one request may carry — the agent's `contextSize`, else the model's
 * window, minus the answer's `maxTokens` and a margin. A small window keeps at least half of itself
 * for input: an answer budget larger than the window would otherwise leave nothing.
 */
export function contextBudget(input: ContextBudgetInput): number {
  const window = input.contextSize ?? input.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const margin = Math.max(MIN_MARGIN_TOKENS, Math.ceil(window * MARGIN_SHARE));
  const reserved = Math.min(input.maxTokens + margin, Math.floor(window / 2));
  return window - reserved;
}
