/**
 * CTX-1, NF-SCALE: a compacted conversation's history built from scratch (a process that has not
 * built it yet). Where the newest compaction is, what the history is built under and the timeline
 * since that compaction come in one statement, and the runs' logs in a second; the timeline starts
 * at the compacting run's own message and that run, so nothing older is read, and the history is the
 * running server's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageServiceKeepingResults } from '../../support/message-service-keeping-results.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';

let fixture: HarnessFixture;
let agentId: string;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
  agentId = Object.values(fixture.agents)[0]!.id;
});
afterAll(async () => {
  await fixture.dispose();
});

const isCompaction = (request: ScriptedRequest) => (request.lastUserText ?? '').includes('hand-over summary');

async function post(conversationId: string, text: string): Promise<string> {
  const response = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`, { text, agentId });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const detail = await fixture.waitForRun(response.body.run.id, 60_000);
  expect(detail.run.state).toBe('completed');
  return response.body.run.id as string;
}

describe("a compacted conversation's history built from scratch", () => {
  it('reads the compaction bound, rewinds, images and timeline in one statement and the logs in another, nothing from before the compacting turn', async () => {
    const app = fixture.server.running.app;
    const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title: 'Compacted from scratch' });
    const conversationId = created.body.id as string;
    fixture.model.reset();
    fixture.model.script(reply().text('FIRST-ANSWER-2207'), reply().tool('bash', { command: 'echo compact-me-2207' }), reply().text('Ran it.'));
    await post(conversationId, 'FIRST-QUESTION-2207');
    await post(conversationId, 'Run the echo.');
    fixture.model.scriptFor(isCompaction, reply().text('SUMMARY-2207: ran echo compact-me-2207.'));
    const compactingRun = await post(conversationId, '/compact');
    fixture.model.script(reply().text('From the summary.'));
    const lastRun = await post(conversationId, 'What did it print?');

    // A service that has not built this history yet, on the same store, counting what it sends and the rows it gets.
    const { service, results } = await messageServiceKeepingResults(app, fixture.workspaceId);
    const fromScratch = await service.history(fixture.workspaceId, conversationId);
    expect(results).toHaveLength(2);
    const [timeline] = results;
    // Messages since the compacting run's own message (the newest user message before it), runs since that run.
    const messages = timeline!.filter((row) => row.kind === 'message').map((row) => row.content);
    expect(messages).toEqual(['Run the echo.', 'Ran it.', 'What did it print?', 'From the summary.']);
    expect(timeline!.filter((row) => row.kind === 'run').map((row) => row.id)).toEqual([compactingRun, lastRun]);

    const text = JSON.stringify(fromScratch);
    expect(text).toContain('SUMMARY-2207');
    expect(text).toContain('From the summary.');
    expect(text).not.toContain('FIRST-QUESTION-2207');
    expect(text).toBe(JSON.stringify(await app.messages.history(fixture.workspaceId, conversationId)));
  }, 120_000);
});
