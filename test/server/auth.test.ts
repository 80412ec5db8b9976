import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

describe('operator token auth', () => {
  it('writes the operator token with 0600 permissions on first start', () => {
    const mode = statSync(join(server.dataRoot, 'operator-token')).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(server.token).toMatch(/^cc_/);
    expect(server.running.tokenCreated).toBe(true);
  });

  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer cc_wrong' }],
    ['a non-bearer scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
  ])('answers 401 to %s and changes nothing', async (_label, headers) => {
    const create = await fetch(`${server.url}/api/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name: 'Intruder' }),
    });
    expect(create.status).toBe(401);
    const body = (await create.json()) as { error: { code: string; field: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.field).toBe('authorization');
    const list = await fetch(`${server.url}/api/workspaces`, { headers });
    expect(list.status).toBe(401);
    expect((await server.api('GET', '/api/workspaces')).body.workspaces).toEqual([]);
  });

  it('the SSE stream takes a single-use ticket in its URL, never the token (EventSource cannot send headers)', async () => {
    const created = await server.api('POST', '/api/workspaces', { name: 'Streams' });
    const denied = await fetch(`${server.url}/api/workspaces/${created.body.id}/events?token=${server.token}`);
    expect(denied.status).toBe(401);
    const ticket = (await server.api('POST', '/api/auth/sse-ticket')).body.ticket;
    const controller = new AbortController();
    const allowed = await fetch(`${server.url}/api/workspaces/${created.body.id}/events?ticket=${ticket}`, { signal: controller.signal });
    expect(allowed.status).toBe(200);
    controller.abort();
    await server.running.app.seeding.settle();
  });
});
