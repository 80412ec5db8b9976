/**
 * CTX-1, NF-SCALE: the history a queued turn reads when its run starts ends before the turn's
 * message, and what was written after that message (its answer, later turns) is not read at all,
 * built from scratch or extended from a kept history; the history is the one the running server
 * builds for that message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageServiceKeepingResults } from '../../support/message-service-keeping-results.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';

let fixture: HarnessFixture;
let agentId: string;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
  agentId = Object.values(fixture.agents)[0]!.id;
});
afterAll(async () => {
  await fixture.dispose();
});

async function post(conversationId: string, text: string): Promise<void> {
  const response = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`, { text, agentId });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  expect((await fixture.waitForRun(response.body.run.id, 60_000)).run.state).toBe('completed');
}

describe('the history before a message', () => {
  it('reads no message written after it, from scratch or kept, and equals the running server’s', async () => {
    const app = fixture.server.running.app;
    const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title: 'Before a message' });
    const conversationId = created.body.id as string;
    fixture.model.reset();
    fixture.model.script(reply().text('one done'), reply().text('two done'), reply().text('three done'));
    for (const text of ['one', 'two', 'three']) await post(conversationId, text);
    const two = (await app.messages.list(fixture.workspaceId, conversationId)).find((message) => message.content === 'two')!;

    // A service that has not built this history yet, on the same store, keeping the rows each statement returns.
    const { service, results } = await messageServiceKeepingResults(app, fixture.workspaceId);
    const messagesRead = () => results.flat().filter((row) => row.kind === 'message').map((row) => row.content);

    const fromScratch = await service.historyBefore(fixture.workspaceId, conversationId, two);
    expect(messagesRead()).toEqual(['one', 'one done', 'two']);
    const text = JSON.stringify(fromScratch);
    expect(text).toContain('one done');
    expect(text).not.toContain('"two"');

    results.length = 0;
    const kept = await service.historyBefore(fixture.workspaceId, conversationId, two);
    expect(results).toHaveLength(1);
    expect(messagesRead()).not.toContain('two done');
    expect(messagesRead()).not.toContain('three');
    expect(JSON.stringify(kept)).toBe(text);
    expect(JSON.stringify(await app.messages.historyBefore(fixture.workspaceId, conversationId, two))).toBe(text);
  }, 120_000);
});
