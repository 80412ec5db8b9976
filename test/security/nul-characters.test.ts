import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/server/start-worker.js';
import { postgresEnabled } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { freshTestDatabase, testDialect } from '../support/test-database.js';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * SEC, WS-3: PostgreSQL refuses the NUL character in text, SQLite stores it. Operator
 * and agent text — a message, the agent's answer, a tool call's input and output, a run-log event
 * — may hold NUL and must come back exactly as written on both dialects (never
 * a 500, never a silent loss); display names refuse control characters, NUL included, with a 400
 * on both (input-validation.test.ts). The PostgreSQL store escapes it reversibly (src/store/nul-escape.ts),
 * so also the escape's own marker character must survive, alone and next to a NUL.
 * Runs on SQLite by default and on PostgreSQL under `npm run test:postgres` (CC_TEST_DATABASE=postgres).
 */
const MARKER = '\uFDD0';
const tricky = [`nul\u0000here`, `\u0000`, `${MARKER}0`, `${MARKER}${MARKER}`, `${MARKER}\u0000${MARKER}`, `end\u0000`].join(' | ');

let server: TestServer;
let model: ScriptedModelServer;
let workspaceId: string;
let spaceId: string;

beforeAll(async () => {
  model = await startScriptedModelServer();
  server = await startTestServer({ env: model.providerEnv });
  workspaceId = (await createSeededWorkspace(server, 'Nul')).id;
  spaceId = (await server.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Work' })).body.id;
}, 120_000);

afterAll(async () => {
  await server?.dispose();
  await model?.close();
});

const ws = (path: string) => `/api/workspaces/${workspaceId}${path}`;

describe(`NUL characters in stored text, ${testDialect()} (SEC)`, () => {
  it('a message, the agent\'s answer, a tool call\'s input and output and the run log keep NUL and the escape marker byte for byte', async () => {
    const conversationId = (await server.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Nul' })).body.id as string;

    // A plain turn first, so the statements the NUL turn writes with (message and run inserts, run
    // updates) are reused compiled queries, whose new parameters are escaped outside Kysely's plugins.
    model.script(reply().tool('todo', { todos: [{ content: 'plain', status: 'pending' }] }), reply().text('plain answer'));
    const plain = await server.api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'plain' });
    await pollUntil(() => server.api('GET', ws(`/runs/${plain.body.run.id}`)), (answer) => answer.body.run.state === 'completed', 60_000);

    model.script(reply().tool('todo', { todos: [{ content: `todo ${tricky}`, status: 'pending' }] }), reply().text(`answer ${tricky}`));
    const posted = await server.api('POST', ws(`/conversations/${conversationId}/messages`), { text: `ask ${tricky}` });
    expect(posted.status).toBe(202);
    expect(posted.body.message.content).toBe(`ask ${tricky}`);
    const runId = posted.body.run.id as string;
    await pollUntil(() => server.api('GET', ws(`/runs/${runId}`)), (answer) => answer.body.run.state === 'completed', 60_000);

    // The model saw the operator's text unchanged (read back from the store for the history).
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain(JSON.stringify(`ask ${tricky}`).slice(1, -1));
    const messages = (await server.api('GET', ws(`/conversations/${conversationId}/messages`))).body.messages as { role: string; content: string }[];
    expect(messages.map((message) => message.content)).toContain(`ask ${tricky}`);
    expect(messages.map((message) => message.content)).toContain(`answer ${tricky}`);

    const detail = (await server.api('GET', ws(`/runs/${runId}`))).body as { toolCalls: { input: unknown; output: unknown }[]; events: unknown[] };
    expect(detail.toolCalls).toHaveLength(1);
    expect(JSON.stringify(detail.toolCalls[0]!.input)).toContain(JSON.stringify(`todo ${tricky}`).slice(1, -1));
    expect(JSON.stringify(detail.toolCalls[0]!.output)).toContain(JSON.stringify(`todo ${tricky}`).slice(1, -1));
    expect(JSON.stringify(detail.events)).toContain(JSON.stringify(`answer ${tricky}`).slice(1, -1));
  }, 120_000);

  it('a display name with NUL (a conversation title) is refused at the boundary with a 400 naming the field, on both dialects', async () => {
    const refused = await server.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: `title ${tricky}` });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('title');
  }, 60_000);

  it('text without NUL that merely looks like the escape is stored as written', async () => {
    const lookalike = `${MARKER}0 is not a NUL; ${MARKER}${MARKER} is not one marker; ${MARKER}x stays`;
    const conversation = await server.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: lookalike });
    expect(conversation.status).toBe(201);
    expect((await server.api('GET', ws(`/conversations/${conversation.body.id}`))).body.title).toBe(lookalike);
    const listed = (await server.api('GET', ws(`/spaces/${spaceId}/conversations`))).body.conversations as { title: string }[];
    expect(listed.map((item) => item.title)).toContain(lookalike);
  }, 60_000);
});

/**
 * On PostgreSQL with an API process and a worker, the turn's text also travels in a pg-boss job
 * (`jsonb`, which refuses `\u0000` as well): it reaches the worker's model unchanged.
 */
describe.skipIf(!postgresEnabled)('NUL characters through the runs queue, PostgreSQL (SEC)', () => {
  it('a message with NUL posted to an API process is executed by a worker and reaches its model byte for byte', async () => {
    const database = await freshTestDatabase();
    const queueModel = await startScriptedModelServer();
    const api = await startTestServer({ role: 'api', database: database.url, env: queueModel.providerEnv });
    const worker = await startWorker({ dataRoot: await makeDataRoot(), database: database.url, env: queueModel.providerEnv, logLevel: 'silent', jobLeaseMs: 3_000, queuePollMs: 200 });
    try {
      const id = (await createSeededWorkspace(api, 'Queued nul')).id;
      const space = (await api.api('POST', `/api/workspaces/${id}/spaces`, { name: 'Work' })).body.id as string;
      const conversationId = (await api.api('POST', `/api/workspaces/${id}/spaces/${space}/conversations`, { title: 'Queued' })).body.id as string;
      queueModel.script(reply().text(`queued answer ${tricky}`));
      const posted = await api.api('POST', `/api/workspaces/${id}/conversations/${conversationId}/messages`, { text: `queued ${tricky}` });
      expect(posted.status).toBe(202);
      expect(posted.body.run.state).toBe('queued');
      const runId = posted.body.run.id as string;
      await pollUntil(() => api.api('GET', `/api/workspaces/${id}/runs/${runId}`), (answer) => answer.body.run.state === 'completed', 60_000);
      expect(JSON.stringify(queueModel.requests.at(-1)!.body)).toContain(JSON.stringify(`queued ${tricky}`).slice(1, -1));
      const messages = (await api.api('GET', `/api/workspaces/${id}/conversations/${conversationId}/messages`)).body.messages as { content: string }[];
      expect(messages.map((message) => message.content)).toEqual(expect.arrayContaining([`queued ${tricky}`, `queued answer ${tricky}`]));
    } finally {
      await worker.close();
      await api.dispose();
      await queueModel.close();
      await database.drop();
    }
  }, 150_000);
});
