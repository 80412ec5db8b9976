import { afterEach, describe, expect, it } from 'vitest';
import { workspaceStoreRows } from '../support/test-database.js';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.dispose();
  server = null;
});


describe('workspace isolation (WS-1) and restarts', () => {
  it("a workspace's rows never appear in another workspace's database file", async () => {
    server = await startTestServer();
    const alpha = await createSeededWorkspace(server, 'Alpha');
    const beta = await createSeededWorkspace(server, 'Beta');
    const solo = await server.api('POST', `/api/workspaces/${alpha.id}/agents`, { name: 'alpha-only' });
    // Read over a second connection to each workspace's own store: its file, or its PostgreSQL schema.
    const location = server.running.app.registry.location;
    const alphaRows = (await workspaceStoreRows(location, alpha, 'select id, name, workspace_id from agents')) as any[];
    const betaRows = (await workspaceStoreRows(location, beta, 'select id, name, workspace_id from agents')) as any[];
    expect(alphaRows.map((row) => row.id)).toContain(solo.body.id);
    expect(betaRows.map((row) => row.name)).not.toContain('alpha-only');
    expect(alphaRows.every((row) => row.workspace_id === alpha.id)).toBe(true);
    expect(betaRows.every((row) => row.workspace_id === beta.id)).toBe(true);
    const alphaIds = new Set(alphaRows.map((row) => row.id));
    expect(betaRows.some((row) => alphaIds.has(row.id))).toBe(false);
    // Through the API, an agent id of one workspace is unknown in the other.
    expect((await server.api('GET', `/api/workspaces/${beta.id}/agents/${solo.body.id}`)).status).toBe(404);
    expect((await server.api('PATCH', `/api/workspaces/${beta.id}/agents/${solo.body.id}`, { title: 'x' })).status).toBe(404);
  });

  it('a restart keeps workspaces, agents and the token; orphaned runs become dead', async () => {
    const dataRoot = await makeDataRoot();
    server = await startTestServer({ dataRoot });
    const workspace = await createSeededWorkspace(server, 'Durable');
    const created = await server.api('POST', `/api/workspaces/${workspace.id}/agents`, { name: 'keeper', skills: ['testing'], silenceTimeoutMinutes: 5 });
    const handle = await server.running.app.workspaces.handle(workspace.id);
    const run = await server.running.app.runs.record(workspace.id, handle.database.db, { agentId: created.body.id, state: 'running' });
    const tokenBefore = server.token;
    await server.stop();

    server = await startTestServer({ dataRoot });
    expect(server.token).toBe(tokenBefore);
    expect(server.running.tokenCreated).toBe(false);
    const workspaces = await server.api('GET', '/api/workspaces');
    expect(workspaces.body.workspaces.map((item: any) => item.name)).toEqual(['Durable']);
    const agent = await server.api('GET', `/api/workspaces/${workspace.id}/agents/${created.body.id}`);
    expect(agent.body).toMatchObject({ name: 'keeper', skills: ['testing'], silenceTimeoutMinutes: 5, state: 'failed' });
    const runs = await server.api('GET', `/api/workspaces/${workspace.id}/agents/${created.body.id}/runs`);
    expect(runs.body.runs[0]).toMatchObject({ id: run.id, state: 'failed', liveness: 'dead' });
    expect((await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents).toHaveLength(6);
  });

  it('seeding runs on workspace creation, not on every start (WS-2)', async () => {
    const dataRoot = await makeDataRoot();
    server = await startTestServer({ dataRoot });
    const workspace = await createSeededWorkspace(server, 'Once');
    const agents = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents;
    await server.api('DELETE', `/api/workspaces/${workspace.id}/agents/${agents.find((agent: any) => agent.name === 'librarian').id}`);
    await server.stop();
    server = await startTestServer({ dataRoot });
    await server.running.app.seeding.settle();
    const after = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents;
    expect(after.map((agent: any) => agent.name)).not.toContain('librarian');
  });

  it('creates a Default workspace on first start when asked (the README run command)', async () => {
    server = await startTestServer({ ensureDefaultWorkspace: true });
    await server.running.app.seeding.settle();
    const { body } = await server.api('GET', '/api/workspaces');
    expect(body.workspaces.map((workspace: any) => workspace.name)).toEqual(['Default']);
    expect((await server.api('GET', `/api/workspaces/${body.workspaces[0].id}/agents`)).body.agents).toHaveLength(5);
  });
});
