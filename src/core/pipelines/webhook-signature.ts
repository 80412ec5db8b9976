import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a webhook's timestamp may be from the server's clock (PIPE-1 webhook triggers). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The signature of a webhook delivery: `sha256=` + hex HMAC-SHA256 over `<timestamp>.<raw body>`
 * with the pipeline's secret. The timestamp is signed so an old delivery cannot be re-dated.
 */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export type WebhookVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Checks a delivery: both headers present, timestamp within tolerance, signature equal in constant
 * time. Replays inside the tolerance window are the caller's to refuse (it records signatures).
 */
export function verifyWebhook(input: { secret: string; timestamp: string | undefined; signature: string | undefined; body: string; nowSeconds: number }): WebhookVerdict {
  if (!input.signature || !input.timestamp) return { ok: false, reason: 'missing signature or timestamp header' };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'timestamp is not a number of seconds' };
  if (Math.abs(input.nowSeconds - Number(input.timestamp)) > WEBHOOK_TOLERANCE_SECONDS) return { ok: false, reason: 'timestamp is outside the allowed window' };
  const expected = Buffer.from(signWebhook(input.secret, input.timestamp, input.body));
  const given = Buffer.from(input.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}
