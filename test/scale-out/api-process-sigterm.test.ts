import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { SseClient } from '../support/sse-client.js';
import { closeInOrder, freshTestDatabase } from '../support/test-database.js';

/**
 * NF-SCALE, leaving: SIGTERM to an API process (a deploy, a scale-down) ends its live event streams
 * politely — each gets `event: server.restarting` and is ended, so a browser reconnects at once to
 * another API process and resumes from its last event id — and the process exits 0. Two real
 * `serve --role api` child processes on one PostgreSQL database.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let leaving: ServeProcess;
let staying: ServeProcess;
const streams: SseClient[] = [];

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  const env = { CONTROL_CENTER_DATABASE_URL: database.url };
  [leaving, staying] = await Promise.all([startServeProcess(env, ['--role', 'api', '--no-default-workspace']), startServeProcess(env, ['--role', 'api', '--no-default-workspace'])]);
}, 120_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await closeInOrder([() => leaving?.stop(), () => staying?.stop(), () => (enabled ? database.drop() : undefined)]);
});

describe.skipIf(!enabled)('SIGTERM to an API process', () => {
  it('each open event stream gets server.restarting and ends, the process exits 0, and the stream resumes on another process without a gap', async () => {
    const workspaceId = (await leaving.api('POST', '/api/workspaces', { name: 'Deployed' })).body.id as string;
    const events = (server: ServeProcess, query = '') => SseClient.open(`${server.url}/api/workspaces/${workspaceId}/events${query}`, { authorization: `Bearer ${server.token}` });
    const stream = await events(leaving);
    streams.push(stream);
    expect((await leaving.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Before' })).status).toBe(201);
    const lastSeen = await stream.waitFor((event) => event.event === 'space.created', 30_000);

    const exited = new Promise<number | null>((resolve) => leaving.child.once('exit', (code) => resolve(code)));
    leaving.child.kill('SIGTERM');
    const restarting = await stream.waitFor((event) => event.event === 'server.restarting', 30_000);
    expect(restarting.data).toEqual({ reconnect: true });
    // The last thing the stream carried, and the server ended it (not a cut connection the client must time out).
    await expect.poll(() => stream.ended, { timeout: 30_000 }).toBe(true);
    expect(stream.events.at(-1)?.event).toBe('server.restarting');
    expect(await exited).toBe(0);

    // While the browser reconnects, the workspace changes through the other process; resuming there misses nothing.
    expect((await staying.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Meanwhile' })).status).toBe(201);
    const resumed = await events(staying, `?lastEventId=${lastSeen.id}`);
    streams.push(resumed);
    expect((await resumed.waitFor((event) => event.event === 'stream.resumed', 30_000)).data).toEqual({ complete: true });
    const meanwhile = await resumed.waitFor((event) => event.event === 'space.created', 30_000);
    expect(meanwhile.data.data.name).toBe('Meanwhile');
  }, 120_000);
});
