import { createHash, randomBytes } from 'node:crypto';

/** Tokens, codes and sessions are kept by their sha256 only: a copy of the registry or the heap holds nothing usable. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A fresh secret with a prefix that says what it is (`cc_` a personal token, `inv_` an invitation code, …). */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
