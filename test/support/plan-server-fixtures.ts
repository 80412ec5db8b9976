import type { ScriptedRequest } from './scripted-reply.js';
import type { TestServer } from './test-server.js';

/** Matches the model request of one plan step (the step prompt names it as `— <key>:`). */
export const planStepRequest = (key: string) => (request: ScriptedRequest) => request.lastUserText?.includes(`— ${key}:`) === true;

/** Reads until `done` holds; fails with the last value after `timeoutMs` (tests never assert times). */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Sends `/plan ship it` (the scripted model must submit a plan) and waits for the proposal. */
export async function proposePlan(server: TestServer, workspaceId: string, conversationId: string): Promise<any> {
  await server.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversationId}/messages`, { text: '/plan ship it' });
  return pollUntil(
    async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans?conversationId=${conversationId}`)).body.plans[0],
    (plan) => plan?.status === 'proposed',
  );
}
