import type { AskUser } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import type { ControlCenter } from '../../src/services/control-center.js';

/** The relay transports' question port wired to the app's real question service with the workspace's timeout (RLY-4). */
export function questionCards(app: ControlCenter): AskUser {
  return async (request, signal) => app.questions.ask(request, { timeoutMs: (await app.settings.get(request.workspaceId)).questionTimeoutSeconds * 1000, signal });
}

/** Polls `read` until it yields a value (an approval, a question card), failing after `timeoutMs`. */
export async function pollFor<T>(read: () => Promise<T | null | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
