import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { gitText as git } from '../support/proxied-push.js';
import { reply } from '../support/scripted-reply.js';

/**
 * SEC-6, SEC-8: the server fetches a forge remote for a run with the workspace's token as an
 * `http.<url>.extraHeader`. git follows a redirect of the first request by default, then sends every
 * later request — the POST that carries the header — straight to the new host: a forge answering with
 * a redirect elsewhere (an open redirect, a moved repository on a compromised host) handed the token
 * to that host. curl drops the header only on the redirected request itself. The server's forge
 * fetches now follow no redirect. The real server's push proxy and built-in bash; the "forge" is a
 * local server that redirects every request to another host name, which serves the repository to
 * anyone and records the credentials it is sent.
 */
let harness: HarnessFixture | null = null;
const servers: Server[] = [];
const cleanup: string[] = [];
afterEach(async () => {
  await harness?.dispose();
  harness = null;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  for (const path of cleanup.splice(0)) await rm(path, { recursive: true, force: true });
});

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** Serves the bare repository at `repoPath` over git's smart HTTP (`git http-backend`), to anyone. */
function serveRepository(repoPath: string, request: IncomingMessage, response: ServerResponse): void {
  const [path, query = ''] = (request.url ?? '/').split('?');
  const backend = spawn('git', ['http-backend'], {
    env: { ...process.env, GIT_PROJECT_ROOT: dirname(repoPath), GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: path!.replace(/^\/[^/]+\/[^/]+\.git/, `/${repoPath.split('/').pop()}`), QUERY_STRING: query, REQUEST_METHOD: request.method ?? 'GET', CONTENT_TYPE: request.headers['content-type'] ?? '' },
  });
  request.pipe(backend.stdin);
  const chunks: Buffer[] = [];
  backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  backend.on('close', () => {
    const output = Buffer.concat(chunks);
    const split = output.indexOf('\r\n\r\n');
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of output.subarray(0, split).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else if (name) headers[name] = value;
    }
    response.writeHead(status, headers).end(output.subarray(split + 4));
  });
}

describe("the server's forge fetch follows no redirect with the token (SEC-6)", () => {
  it('a forge that redirects to another host gets the fetch refused; the other host never sees the token', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'cc-forge-redirect-'));
    cleanup.push(scratch);
    const { repoPath, remotePath } = await makeRepoWithRemote(scratch);
    git(remotePath, 'update-server-info');
    const seenElsewhere: Array<{ method: string; path: string; authorization: string | null }> = [];
    const elsewhere = await listen((request, response) => {
      seenElsewhere.push({ method: request.method ?? 'GET', path: request.url ?? '', authorization: request.headers.authorization ?? null });
      serveRepository(remotePath, request, response);
    });
    // The forge: every request is sent on to another host name (localhost, not 127.0.0.1).
    const forge = await listen((request, response) => {
      response.writeHead(301, { location: `http://localhost:${elsewhere}${request.url ?? '/'}` }).end();
    });
    const forgeWeb = `http://127.0.0.1:${forge}`;
    git(repoPath, 'remote', 'set-url', 'origin', `${forgeWeb}/acme/app.git`);
    harness = await startHarnessFixture({ space: { repoPath } });
    const h = harness;
    const token = 'ghp_forge_token_that_must_stay_home';
    const settings = await h.server.api('PATCH', `/api/workspaces/${h.workspaceId}/settings`, { githubApiBaseUrl: `${forgeWeb}/api`, githubWebBaseUrl: forgeWeb, forgeTokens: { github: token } });
    expect(settings.status).toBe(200);
    h.model.script(reply().tool('bash', { command: 'git fetch origin; echo "fetch exited $?"' }), reply().text('Done.'));
    const detail = await h.waitForRun(await h.send('fetch the forge'));
    expect(detail.run.state).toBe('completed');
    const output = detail.toolCalls[0].output as string;
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    expect(seenElsewhere.filter((request) => request.authorization?.includes(basic))).toEqual([]);
    expect(output).toMatch(/fetch exited [1-9]/);
    expect(output).not.toContain(basic);
  }, 90_000);
});
