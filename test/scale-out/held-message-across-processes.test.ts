import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../src/server/start-worker.js';
import { ONE_PIXEL_PNG_BASE64, startFakeImageServer, type FakeImageServer } from '../support/fake-image-server.js';
import { closeInOrder, freshTestDatabase, workspaceStoreRows } from '../support/test-database.js';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * HAR-5 across processes: a message posted through an API process while the conversation's turn runs
 * on a worker and cannot be steered (an OpenAI Image turn: one images call, no steering) is held — stored
 * in the shared store, not in either process's memory — and starts its own turn once the first turn has
 * ended on the worker: exactly once, after the first answer. An API server (`role: 'api'`) and a worker
 * on one real PostgreSQL database; the images API is the stand-in model.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let images: FakeImageServer;
let api: TestServer;
let worker: RunningWorker;
let ws: (path: string) => string;
let workspace: { id: string; dataDir: string };
let conversationId: string;
let agentId: string;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  images = await startFakeImageServer();
  const env = { OPENAI_BASE_URL: images.baseUrl, OPENAI_API_KEY: 'sk-image-test' };
  api = await startTestServer({ role: 'api', database: database.url, env });
  worker = await startWorker({ dataRoot: await makeDataRoot(), database: database.url, env, logLevel: 'silent', jobLeaseMs: 3_000, queuePollMs: 200 });
  workspace = await createSeededWorkspace(api, 'Held');
  ws = (path) => `/api/workspaces/${workspace.id}${path}`;
  const spaceId = (await api.api('POST', ws('/spaces'), { name: 'Pictures' })).body.id as string;
  conversationId = (await api.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Drawings' })).body.id as string;
  const agent = await api.api('POST', ws('/agents'), { name: 'painter', title: 'Painter', adapterId: 'openai-image' });
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
}, 180_000);

afterAll(async () => {
  if (!enabled) return;
  await closeInOrder([() => worker?.close(), () => api?.dispose(), () => images?.close(), () => database?.drop()]);
});

const runsOfConversation = async () => (await api.api('GET', ws(`/runs?conversationId=${conversationId}`))).body.runs as Array<{ id: string; state: string; createdAt: string; endedAt: string | null }>;

describe.skipIf(!enabled)('a message held behind a turn running on a worker', () => {
  it('is stored through the API process, and starts once — after the first turn ended on the worker, in order', async () => {
    const first = images.hold({ created: 1, data: [{ b64_json: ONE_PIXEL_PNG_BASE64 }] });
    images.script({ created: 2, data: [{ b64_json: ONE_PIXEL_PNG_BASE64 }] });
    const sent = await api.api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'a red square', agentId });
    expect(sent.status).toBe(202);
    const firstRunId = sent.body.run.id as string;
    // The first turn is on the worker, inside its images call.
    await expect.poll(() => images.requests.length, { timeout: 60_000 }).toBe(1);

    const second = await api.api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'now a blue circle', agentId });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ message: null, run: null, startsAfterRunId: firstRunId });
    expect((await runsOfConversation()).map((run) => run.id)).toEqual([firstRunId]);

    first.release();
    let runs: Awaited<ReturnType<typeof runsOfConversation>> = [];
    await expect.poll(async () => (runs = await runsOfConversation()).length === 2 && runs.every((run) => run.state === 'completed'), { timeout: 60_000 }).toBe(true);
    const firstRun = runs.find((run) => run.id === firstRunId)!;
    const next = runs.find((run) => run.id !== firstRunId)!;
    // Started after the first turn ended, not beside it; and the held message was asked once.
    expect(Date.parse(next.createdAt)).toBeGreaterThanOrEqual(Date.parse(firstRun.endedAt!));
    expect(images.requests.map((request) => request.body.prompt)).toEqual([expect.stringContaining('a red square'), expect.stringContaining('now a blue circle')]);
    const messages = (await api.api('GET', ws(`/conversations/${conversationId}/messages`))).body.messages as Array<{ role: string; content: string }>;
    const asked = messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(asked).toEqual(['a red square', 'now a blue circle']);
    // Released, so no sweep of any process starts it again: the stored message is gone, two turns in all.
    const heldRows = async () => (await workspaceStoreRows<{ n: number }>({ dialect: 'postgres', url: database.url }, workspace, 'select count(*) as n from held_messages'))[0]!.n;
    await expect.poll(heldRows, { timeout: 30_000 }).toBe(0);
    expect(await runsOfConversation()).toHaveLength(2);
    expect(images.requests).toHaveLength(2);
  }, 180_000);
});
