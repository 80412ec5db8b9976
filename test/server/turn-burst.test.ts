import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';

/**
 * NF-SCALE, bursts: turns posted all at once are each accepted with a 202 naming its own run, none
 * lost, and every one of them runs to completion. No timing is asserted (bench/turn-burst.bench.ts
 * measures how long acceptance takes); this holds the contract the fast path must keep.
 */
const TURNS = 200;
let harness: HarnessFixture;
beforeAll(async () => {
  harness = await startHarnessFixture({ operatorConnected: false });
}, 120_000);
afterAll(async () => {
  await harness?.dispose();
});

describe('a burst of turns posted at once', () => {
  it(`${TURNS} concurrent turns, each in its own conversation: all 202 with distinct runs, all completed`, async () => {
    const { server, workspaceId, spaceId } = harness;
    const conversations: string[] = [];
    for (let index = 0; index < TURNS; index += 1) {
      const created = await server.api('POST', `/api/workspaces/${workspaceId}/spaces/${spaceId}/conversations`, { title: `burst ${index}` });
      expect(created.status).toBe(201);
      conversations.push(created.body.id);
    }
    const answers = await Promise.all(
      conversations.map((conversationId, index) => server.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversationId}/messages`, { text: `turn ${index}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(conversations.map(() => 202));
    const runIds = answers.map((answer) => answer.body.run.id as string);
    expect(new Set(runIds).size).toBe(TURNS);
    for (const [index, answer] of answers.entries()) expect(answer.body.run.conversationId).toBe(conversations[index]);
    const ended = await Promise.all(runIds.map((runId) => harness.waitForRun(runId, 240_000)));
    expect(ended.map((detail) => detail.run.state)).toEqual(runIds.map(() => 'completed'));
    // Every run called the model at least once: none ended without executing.
    expect(harness.model.requests.length).toBeGreaterThanOrEqual(TURNS);
  }, 300_000);
});
