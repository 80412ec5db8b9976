import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { testDialect } from '../support/test-database.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE, bursts, on PostgreSQL: the reads a posted turn makes before its write. The token's read
 * joins its person, so the role check takes the person from it instead of reading the person again;
 * the conversation and its space are one statement. Each round trip is a wake-up of the database and
 * of the API process. Counted on node-postgres's client; no timing is asserted. PostgreSQL only:
 * runs under CC_TEST_DATABASE=postgres.
 */
const onPostgres = testDialect() === 'postgres';
let harness: HarnessFixture;

beforeAll(async () => {
  if (!onPostgres) return;
  harness = await startHarnessFixture({ operatorConnected: false });
  // An API process's dispatch: the job queue itself is not what is counted here.
  harness.server.running.app.executor.dispatchTo(async () => undefined);
}, 120_000);
afterAll(async () => {
  await harness?.dispose();
});

describe.skipIf(!onPostgres)('a posted turn, on PostgreSQL', () => {
  it('reads its person once (with the token) and its conversation with its space in one statement', async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversationId = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'reads' })).body.id as string;
    let answer!: { status: number; body: { run: { state: string }; space: { id: string } } };
    const sent = await statementsDuring(async () => (answer = await api('POST', `/conversations/${conversationId}/messages`, { text: 'counted' })));
    expect(answer.status).toBe(202);
    expect(answer.body.space.id).toBe(spaceId);
    const reads = sent.filter((text) => text.startsWith('select'));
    expect(reads.filter((text) => text.includes('from "people"') || text.includes('join "people"'))).toHaveLength(1);
    const spaceOrConversation = reads.filter((text) => /(from|join) "(spaces|conversations)"/.test(text) && !text.includes('"runs"'));
    expect(spaceOrConversation).toHaveLength(1);
    expect(spaceOrConversation[0]).toMatch(/from "conversations" left join "spaces"/);
  }, 120_000);

  it('still refuses an unknown conversation with 404 naming the field, recording nothing', async () => {
    const { server, workspaceId } = harness;
    const answer = await server.api('POST', `/api/workspaces/${workspaceId}/conversations/cv_missing/messages`, { text: 'nowhere' });
    expect(answer.status).toBe(404);
    expect(answer.body.error.field).toBe('conversationId');
  }, 60_000);
});
