import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * TOOL-2 with @modelcontextprotocol/server-filesystem over stdio: the server runs in the runner
 * sandbox, so it reads the folder the operator made readable and never the Control Center's data
 * root (operator token, databases), even when its own allowed directory holds it.
 */
const filesystem = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

let fixture: HarnessFixture;
let shared: string | null = null;
afterEach(async () => {
  await fixture?.dispose();
  if (shared) rmSync(shared, { recursive: true, force: true });
  shared = null;
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);

describe('operators\' MCP servers: server-filesystem in the sandbox (TOOL-2, SEC-3)', () => {
  it('reads the folder made readable; the data root is not there for it', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    shared = mkdtempSync(join(tmpdir(), 'cc-mcp-shared-'));
    writeFileSync(join(shared, 'notes.txt'), 'shared notes for the agent\n');
    // Its allowed directory is the whole /tmp, where the data root lives on the host.
    const created = await api('POST', '/mcp-servers', { name: 'files', transport: 'stdio', command: process.execPath, args: [filesystem, tmpdir()], readOnlyPaths: [shared], agents: [fixture.agents.engineer!.id] });
    expect(created.status).toBe(201);
    const listed = await api('POST', `/mcp-servers/${created.body.id}/tools/list`);
    expect(listed.body.lastError).toBeNull();
    expect(listed.body.tools.map((tool: any) => tool.name)).toEqual(expect.arrayContaining(['read_text_file', 'list_directory', 'write_file']));
    for (const tool of ['read_text_file', 'list_directory']) await api('PUT', `/mcp-servers/${created.body.id}/tools/${tool}/effects`, { effects: [] });

    fixture.model.script(
      reply().tool('mcp__files__read_text_file', { path: join(shared, 'notes.txt') }),
      reply().tool('mcp__files__read_text_file', { path: join(fixture.server.dataRoot, 'operator-token') }),
      reply().tool('mcp__files__list_directory', { path: fixture.server.dataRoot }),
      reply().text('done'),
    );
    const detail = await fixture.waitForRun(await fixture.send('@engineer read the notes'), 60_000);
    expect(detail.run.state).toBe('completed');
    const [notes, token, listing] = detail.toolCalls;
    expect(notes).toMatchObject({ executed: true, isError: false });
    expect(notes.output).toContain('shared notes for the agent');
    expect(token.isError).toBe(true);
    expect(token.output).not.toContain(fixture.server.token);
    // On the host the data root holds the token and the databases; in the sandbox it is an empty folder.
    expect(readdirSync(fixture.server.dataRoot)).toContain('operator-token');
    expect(listing).toMatchObject({ executed: true, isError: false });
    expect(listing.output).not.toContain('operator-token');
  });

  it('a readable path inside the data root is refused, naming the field', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const refused = await api('POST', '/mcp-servers', { name: 'files', transport: 'stdio', command: process.execPath, args: [filesystem], readOnlyPaths: [fixture.server.dataRoot] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('readOnlyPaths.0');
    expect((await api('GET', '/mcp-servers')).body.servers).toEqual([]);
  });
});
