import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { testDialect } from '../support/test-database.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';
import { createSeededWorkspace } from '../support/test-server.js';

/**
 * NF-SCALE, bursts: the reads a posted turn makes before its write. The token's read joins its
 * person, so the role check takes the person from it instead of reading the person again; the
 * conversation, its space, whether a turn of it is going, and the agent the message addresses with
 * what its state is derived from, are ONE statement. Each round trip is a wake-up of the database
 * and of the API process. Counted on node-postgres's client (PostgreSQL only, under
 * CC_TEST_DATABASE=postgres); no timing is asserted. Which agent a message addresses, and the 404s
 * naming the field, are checked on both dialects.
 */
const onPostgres = testDialect() === 'postgres';
let harness: HarnessFixture;

type Answer = { status: number; body: any };
const api = (method: string, path: string, body?: unknown): Promise<Answer> => harness.server.api(method, `/api/workspaces/${harness.workspaceId}${path}`, body);
const newConversation = async (spaceId = harness.spaceId) => (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'reads' })).body.id as string;
const post = (conversationId: string, body: Record<string, unknown>) => api('POST', `/conversations/${conversationId}/messages`, body);

beforeAll(async () => {
  harness = await startHarnessFixture({ operatorConnected: false });
  // An API process's dispatch: runs are accepted `queued` and nothing executes them here.
  harness.server.running.app.executor.dispatchTo(async () => undefined);
}, 120_000);
afterAll(async () => {
  await harness?.dispose();
});

describe.skipIf(!onPostgres)('a posted turn, on PostgreSQL', () => {
  it('reads its person with the token, then its conversation, space, going turn and agent in one statement', async () => {
    const conversationId = await newConversation();
    let answer!: Answer;
    const sent = await statementsDuring(async () => (answer = await post(conversationId, { text: 'counted' })));
    expect(answer.status).toBe(202);
    expect(answer.body.space.id).toBe(harness.spaceId);
    expect(answer.body.run.agentId).toBe(harness.agents.ceo!.id);
    const reads = sent.filter((text) => text.startsWith('select'));
    expect(reads.filter((text) => text.includes('from "people"') || text.includes('join "people"'))).toHaveLength(1);
    // The job queue's and the sweeps' own statements may fall in the window: only this turn's tables count.
    const turnReads = reads.filter((text) => /"(conversations|spaces|agents|runs)"/.test(text) && !text.includes('"run_dispatches"'));
    expect(turnReads).toHaveLength(1);
    expect(turnReads[0]).toMatch(/from "conversations" as "c" left join "spaces" as "s" .* left join "agents" as "a"/);
    expect(turnReads[0]).toContain('from "runs"');
    // No run row is read whole on the way (a run row is wide).
    expect(reads.filter((text) => text.startsWith('select * from "runs"'))).toEqual([]);
  }, 120_000);

  it('reads the going turn itself only when one is going: a message to it is still taken by that turn', async () => {
    const conversationId = await newConversation();
    const first = await post(conversationId, { text: 'first' });
    expect(first.status).toBe(202);
    let answer!: Answer;
    const sent = await statementsDuring(async () => (answer = await post(conversationId, { text: 'second' })));
    // The first turn is queued and cannot be steered yet: the message waits for it to end.
    expect(answer.status).toBe(202);
    expect(answer.body.startsAfterRunId).toBe(first.body.run.id);
    expect(sent.filter((text) => text.startsWith('select * from "runs" where "conversation_id"'))).toHaveLength(1);
  }, 120_000);
});

describe('the agent a posted turn addresses', () => {
  it('is the @mentioned agent, else the one named by agentId, else the default agent, else ceo', async () => {
    const { agents } = harness;
    expect((await post(await newConversation(), { text: 'plain' })).body.run.agentId).toBe(agents.ceo!.id);
    expect((await post(await newConversation(), { text: '@engineer look' })).body.run.agentId).toBe(agents.engineer!.id);
    // A name that is no agent's addresses nobody: the next choice takes the message.
    expect((await post(await newConversation(), { text: '@nobody look' })).body.run.agentId).toBe(agents.ceo!.id);
    expect((await post(await newConversation(), { text: 'plain', agentId: agents.qa!.id })).body.run.agentId).toBe(agents.qa!.id);
    expect((await post(await newConversation(), { text: '@engineer look', agentId: 'ag_missing' })).body.run.agentId).toBe(agents.engineer!.id);
    const space = await api('POST', '/spaces', { name: 'Defaulted', defaultAgentId: agents.qa!.id });
    expect(space.status).toBe(201);
    expect((await post(await newConversation(space.body.id), { text: 'plain' })).body.run.agentId).toBe(agents.qa!.id);
    expect((await post(await newConversation(space.body.id), { text: 'plain', agentId: agents.engineer!.id })).body.run.agentId).toBe(agents.engineer!.id);
  }, 120_000);

  it('refuses an agentId or a default agent that is no agent with 404 naming agentId, recording nothing', async () => {
    const conversationId = await newConversation();
    const missing = await post(conversationId, { text: 'to nobody', agentId: 'ag_missing' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe('agentId');
    expect(missing.body.error.message).toContain('ag_missing');
    const created = await api('POST', '/agents', { name: 'short-lived' });
    expect(created.status).toBe(201);
    const space = await api('POST', '/spaces', { name: 'Orphaned default', defaultAgentId: created.body.id });
    expect((await api('DELETE', `/agents/${created.body.id}`)).status).toBe(204);
    const orphaned = await newConversation(space.body.id);
    const gone = await post(orphaned, { text: 'to a deleted default' });
    expect(gone.status).toBe(404);
    expect(gone.body.error.field).toBe('agentId');
    expect(gone.body.error.message).toContain(created.body.id);
    for (const id of [conversationId, orphaned]) expect((await api('GET', `/conversations/${id}/messages`)).body.messages).toEqual([]);
  }, 120_000);

  it('refuses an unknown conversation with 404 naming the field, recording nothing', async () => {
    const answer = await post('cv_missing', { text: 'nowhere' });
    expect(answer.status).toBe(404);
    expect(answer.body.error.field).toBe('conversationId');
  }, 60_000);

  it('is the oldest agent when there is no ceo, and a 404 naming agentId when there is no agent at all', async () => {
    // Workspaces of their own: an agent with a run in progress (queued here forever) cannot be deleted.
    const inFreshWorkspace = async (name: string) => {
      const workspace = await createSeededWorkspace(harness.server, name);
      const at = (method: string, path: string, body?: unknown): Promise<Answer> => harness.server.api(method, `/api/workspaces/${workspace.id}${path}`, body);
      const spaceId = (await at('POST', '/spaces', { name: 'Work' })).body.id as string;
      const agents = (await at('GET', '/agents')).body.agents as Array<{ id: string; name: string; createdAt: string }>;
      const postToNew = async () => at('POST', `/conversations/${(await at('POST', `/spaces/${spaceId}/conversations`, { title: 'x' })).body.id}/messages`, { text: 'plain' });
      return { at, agents, postToNew };
    };
    const noCeo = await inFreshWorkspace('No ceo');
    const ceo = noCeo.agents.find((agent) => agent.name === 'ceo')!;
    expect((await noCeo.at('DELETE', `/agents/${ceo.id}`)).status).toBe(204);
    const [oldest] = noCeo.agents.filter((agent) => agent !== ceo).sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
    expect((await noCeo.postToNew()).body.run.agentId).toBe(oldest!.id);
    const empty = await inFreshWorkspace('No agents');
    for (const agent of empty.agents) expect((await empty.at('DELETE', `/agents/${agent.id}`)).status).toBe(204);
    const none = await empty.postToNew();
    expect(none.status).toBe(404);
    expect(none.body.error.field).toBe('agentId');
  }, 120_000);
});
