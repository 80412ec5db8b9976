import { toAnthropicMessages } from './anthropic-message-turns.js';
import { ANTHROPIC_API_VERSION } from './anthropic-provider.js';
import type { ModelRequest } from './model-types.js';

/** A provider's own count of a request's input tokens; null when it cannot say (no endpoint, an error). */
export type CountTokens = (request: ModelRequest, signal: AbortSignal) => Promise<number | null>;

/**
 * CTX-1: Anthropic's `POST /v1/messages/count_tokens` for a request as the provider would get it
 * (system prompt, tools, messages). Never throws: a failed count is null and the estimate stands.
 */
export function createAnthropicTokenCounter(options: { apiKey: string; baseUrl: string; defaultHeaders?: Record<string, string> }): CountTokens {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v1/messages/count_tokens`;
  return async (request, signal) => {
    try {
      const body = {
        model: request.model,
        ...(request.system ? { system: request.system } : {}),
        ...(request.tools.length > 0 ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })) } : {}),
        messages: toAnthropicMessages(request.messages),
      };
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': ANTHROPIC_API_VERSION,
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          ...options.defaultHeaders,
        },
        body: JSON.stringify(body),
        signal,
      });
      if (!response.ok) return null;
      const counted = ((await response.json()) as { input_tokens?: unknown }).input_tokens;
      return typeof counted === 'number' && counted > 0 ? counted : null;
    } catch {
      return null;
    }
  };
}
