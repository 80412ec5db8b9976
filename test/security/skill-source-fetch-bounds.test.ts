/**
 * SEC-10/SEC-11: fetching a skill source is bounded in time and in bytes. The URL is the operator's,
 * but the server behind it is not: one that accepts the connection and never answers, and one that
 * serves a repository far larger than any skill source, both end with a 400 naming the cause, and
 * nothing is stored. Real servers over HTTP, real git fetching over http:// and file://; the
 * bounds are made small (a 2 s timeout, a 1 MiB pack) so that the test takes seconds, each on a
 * server of its own (a fetch slowed by a busy host must not meet the other test's timeout).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSkillSource, skillMd } from '../support/skill-source-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let timeoutServer: TestServer;
let sizeServer: TestServer;
let silent: Server;
let silentUrl: string;
const sockets = new Set<Socket>();
let large: Awaited<ReturnType<typeof makeSkillSource>>;

beforeAll(async () => {
  // Accepts every connection, reads what git sends, answers nothing.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/skills.git`;
  // Random bytes do not compress: 4 MiB of them make a 4 MiB pack.
  large = await makeSkillSource({ 'skills/big/SKILL.md': skillMd('big'), 'skills/big/data.bin': randomBytes(4 * 1024 * 1024).toString('base64') });
  timeoutServer = await startTestServer({ skillSourceFetch: { timeoutMs: 2_000 } });
  sizeServer = await startTestServer({ skillSourceFetch: { packBytes: 1024 * 1024 } });
}, 120_000);

afterAll(async () => {
  await timeoutServer?.dispose();
  await sizeServer?.dispose();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  if (large) await rm(large.dir, { recursive: true, force: true });
});

/** Registers `url` as a skill source of a new workspace: the answer, and the sources stored after it. */
async function addSource(server: TestServer, url: string) {
  const ws = await createSeededWorkspace(server, 'Fetch bounds');
  const response = await server.api('POST', `/api/workspaces/${ws.id}/skills/sources`, { url });
  const listed = await server.api('GET', `/api/workspaces/${ws.id}/skills/sources`);
  expect(listed.status).toBe(200);
  return { response, stored: (listed.body.sources ?? listed.body) as unknown[] };
}

describe('skill-source fetch bounds (SEC-10, SEC-11)', () => {
  it('a server that accepts and never answers: the fetch stops at its timeout with a 400 naming it; nothing is stored', async () => {
    const { response, stored } = await addSource(timeoutServer, silentUrl);
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('url');
    expect(response.body.error.message).toMatch(/git fetch did not finish within 2 s and was stopped/);
    expect(stored).toEqual([]);
    // The server answers as before.
    expect((await fetch(`${timeoutServer.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('a source whose pack is past the cap: the fetch is stopped with a 400 naming the cap; nothing is stored', async () => {
    const { response, stored } = await addSource(sizeServer, `file://${large.dir}`);
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('url');
    expect(response.body.error.message).toMatch(/the source is larger than 1 MiB, the most one fetch of a skill source may bring; nothing was stored/);
    expect(stored).toEqual([]);
  }, 60_000);
});
