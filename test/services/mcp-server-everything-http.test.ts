import { afterEach, describe, expect, it } from 'vitest';
import { startEverythingHttpServer, type EverythingHttpServer } from '../support/everything-http-server.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/** TOOL-2 over streamable HTTP: server-everything reached by URL, with a header from a write-only secret. */
let fixture: HarnessFixture;
let everything: EverythingHttpServer | null = null;
afterEach(async () => {
  await fixture?.dispose();
  await everything?.close();
  everything = null;
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

describe('operators\' MCP servers: server-everything over streamable HTTP (TOOL-2)', () => {
  it('lists and calls its tools with the secret header on every request; the header is never read back', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    everything = await startEverythingHttpServer();
    const created = await api('POST', '/mcp-servers', { name: 'remote', transport: 'http', url: everything.url, headers: { Authorization: 'Bearer remote-7731' }, agents: [fixture.agents.engineer!.id] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ transport: 'http', url: everything.url, command: null, secrets: { Authorization: 'set' } });
    const listed = await api('POST', `/mcp-servers/${created.body.id}/tools/list`);
    expect(listed.body.lastError).toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain('remote-7731');
    await api('PUT', `/mcp-servers/${created.body.id}/tools/get-sum/effects`, { effects: [] });

    fixture.model.script(reply().tool('mcp__remote__get-sum', { a: 20, b: 22 }), reply().text('42'));
    const detail = await fixture.waitForRun(await fixture.send('@engineer add'), 30_000);
    expect(detail.run.state).toBe('completed');
    expect(detail.toolCalls[0]).toMatchObject({ name: 'mcp__remote__get-sum', executed: true, isError: false, decision: 'allow' });
    expect(detail.toolCalls[0].output).toContain('42');
    expect(everything.authorizations.length).toBeGreaterThan(2);
    expect(new Set(everything.authorizations)).toEqual(new Set(['Bearer remote-7731']));

    // A changed secret reaches the server on the next connection; removing the server ends it.
    await api('PATCH', `/mcp-servers/${created.body.id}`, { headers: { Authorization: 'Bearer rotated-9' } });
    fixture.model.script(reply().tool('mcp__remote__get-sum', { a: 1, b: 1 }), reply().text('2'));
    await fixture.waitForRun(await fixture.send('@engineer add again'), 30_000);
    expect(everything.authorizations.at(-1)).toBe('Bearer rotated-9');
    expect((await api('DELETE', `/mcp-servers/${created.body.id}`)).status).toBe(204);
    expect((await api('GET', `/mcp-servers/${created.body.id}`)).status).toBe(404);
  });

  it('an unreachable URL is reported on the server, not thrown', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const created = await api('POST', '/mcp-servers', { name: 'gone', transport: 'http', url: 'http://127.0.0.1:9/mcp' });
    const listed = await api('POST', `/mcp-servers/${created.body.id}/tools/list`);
    expect(listed.status).toBe(200);
    expect(listed.body.tools).toBeNull();
    expect(listed.body.lastError).toMatch(/fetch failed|ECONNREFUSED/);
  });
});
