import type { TransportRunContext } from '../agent-transport.js';

/** The environment variable the Cursor key is read from until Settings carries one. */
export const CURSOR_API_KEY_VARIABLE = 'CURSOR_API_KEY';

/**
 * The one place the Cursor transport reads its API key. Today: `CURSOR_API_KEY` from the run's
 * brokered environment (the server's, never the worktree's). When Settings gains a Cursor key
 * (`runnerKeys.cursor`), read it here first: nothing else in the transport touches the key.
 */
export function cursorApiKey(context: Pick<TransportRunContext, 'env'>): string | null {
  const key = context.env[CURSOR_API_KEY_VARIABLE]?.trim();
  return key ? key : null;
}
