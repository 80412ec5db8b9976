import type { TransportRunContext } from '../agent-transport.js';

/** The environment variable the Cursor key is read from when Settings carries none. */
export const CURSOR_API_KEY_VARIABLE = 'CURSOR_API_KEY';

/**
 * The one place the Cursor transport reads its API key: the workspace's Settings key
 * (`runnerKeys.cursor`, write-only, SEC-6) first, else `CURSOR_API_KEY` from the run's brokered
 * environment (the server's, never the worktree's). Nothing else in the transport touches the key.
 */
export function cursorApiKey(context: Pick<TransportRunContext, 'env' | 'providerSettings'>): string | null {
  const key = (context.providerSettings?.runnerKeys?.cursor ?? context.env[CURSOR_API_KEY_VARIABLE])?.trim();
  return key ? key : null;
}
