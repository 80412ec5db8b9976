import type { WireProtocol } from '../../llm/model-catalog.js';

/** What the model proxy answers instead of forwarding a call over a spend limit. */
export interface SpendLimitRefusal {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * BUD-1: a call over a spend limit, refused in the provider's own error shape so the runtime shows
 * it as its error: Anthropic's `billing_error` (402) and OpenAI's `insufficient_quota`. Status 402 is
 * not one the SDKs retry (they retry 408, 409, 429 and 5xx), and `x-should-retry: false` says so to
 * those that read it: sending the call again cannot help until an operator decides.
 */
export function spendLimitRefusal(protocol: WireProtocol, message: string): SpendLimitRefusal {
  const body =
    protocol === 'anthropic-messages'
      ? { type: 'error', error: { type: 'billing_error', message } }
      : { error: { message, type: 'insufficient_quota', param: null, code: 'spend_limit_reached' } };
  return { status: 402, headers: { 'content-type': 'application/json', 'x-should-retry': 'false' }, body: Buffer.from(JSON.stringify(body)) };
}
