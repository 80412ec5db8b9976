import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.dispose();
});

describe('workspaces (WS-1, WS-2)', () => {
  it('creates a data directory with agents/, skills/, repos/, skills-lock.json and its own database (WS-1)', async () => {
    const workspace = await createSeededWorkspace(server);
    // Its own database: a file in the directory, or (on PostgreSQL) its own schema (WS-3).
    const ownDatabase = server.running.app.registry.location.dialect === 'sqlite' ? ['workspace.sqlite'] : [];
    for (const entry of ['agents', 'skills', 'repos', 'skills-lock.json', ...ownDatabase]) {
      expect(existsSync(join(workspace.dataDir, entry)), entry).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(workspace.dataDir, 'skills-lock.json'), 'utf8'))).toEqual({ version: 1, skills: {} });
  });

  it('seeds exactly the CEO and four specialists reporting to it, with no adapter and no model (WS-2, AG-6)', async () => {
    const workspace = await createSeededWorkspace(server);
    const { body } = await server.api('GET', `/api/workspaces/${workspace.id}/agents`);
    const agents = body.agents as Array<Record<string, any>>;
    expect(agents.map((agent) => agent.name).sort()).toEqual(['architect', 'ceo', 'engineer', 'librarian', 'qa']);
    const ceo = agents.find((agent) => agent.name === 'ceo')!;
    expect(ceo.reportsTo).toBeNull();
    for (const agent of agents) {
      expect(agent.adapterId).toBeNull();
      expect(agent.modelId).toBeNull();
      expect(agent.persona.length).toBeGreaterThan(200);
      expect(agent.state).toBe('neverRun');
      if (agent.name !== 'ceo') expect(agent.reportsTo).toBe(ceo.id);
      const markdown = readFileSync(join(workspace.dataDir, 'agents', agent.name, 'AGENTS.md'), 'utf8');
      expect(markdown).toContain(`name: ${agent.name}`);
      for (const skill of agent.skills) {
        const link = join(workspace.dataDir, 'agents', agent.name, '.agents', 'skills', skill);
        expect(readlinkSync(link)).toBe(join('..', '..', '..', '..', 'skills', skill));
        expect(existsSync(join(link, 'SKILL.md'))).toBe(true);
      }
    }
    const fetched = await server.api('GET', `/api/workspaces/${workspace.id}`);
    expect(fetched.body.seeding).toBe('done');
  });

  it('re-seeding is idempotent and rewrites agent files and skill links even when the rows exist (WS-2)', async () => {
    const workspace = await createSeededWorkspace(server);
    const engineerDir = join(workspace.dataDir, 'agents', 'engineer');
    writeFileSync(join(engineerDir, 'AGENTS.md'), 'corrupted');
    rmSync(join(engineerDir, '.agents', 'skills', 'testing'));
    const renamed = await server.api('GET', `/api/workspaces/${workspace.id}/agents`);
    const qa = renamed.body.agents.find((agent: any) => agent.name === 'qa');
    await server.api('PATCH', `/api/workspaces/${workspace.id}/agents/${qa.id}`, { title: 'Lead QA' });

    const reseeded = await server.api('POST', `/api/workspaces/${workspace.id}/seed`);
    expect(reseeded.status).toBe(200);
    const { body } = await server.api('GET', `/api/workspaces/${workspace.id}/agents`);
    expect(body.agents).toHaveLength(5);
    expect(readFileSync(join(engineerDir, 'AGENTS.md'), 'utf8')).toContain('name: engineer');
    expect(readlinkSync(join(engineerDir, '.agents', 'skills', 'testing'))).toContain('skills/testing');
    // The operator's edit of the row survives; the files follow the row.
    expect(body.agents.find((agent: any) => agent.name === 'qa').title).toBe('Lead QA');
    expect(readFileSync(join(workspace.dataDir, 'agents', 'qa', 'AGENTS.md'), 'utf8')).toContain('Lead QA');
    expect(readdirSync(join(workspace.dataDir, 'agents')).sort()).toEqual(['architect', 'ceo', 'engineer', 'librarian', 'qa']);
  });

  it('seeding asked for while the background seeding runs, several times at once, answers 200 and seeds each agent once (WS-2)', async () => {
    const created = await server.api('POST', '/api/workspaces', { name: 'Racing' });
    expect(created.status).toBe(201);
    // The background seeding the creation started is still under way: each of these races it and the others.
    const seeds = await Promise.all([1, 2, 3].map(() => server.api('POST', `/api/workspaces/${created.body.id}/seed`)));
    expect(seeds.map((seed) => seed.status)).toEqual([200, 200, 200]);
    const { body } = await server.api('GET', `/api/workspaces/${created.body.id}/agents`);
    expect(body.agents.map((agent: any) => agent.name).sort()).toEqual(['architect', 'ceo', 'engineer', 'librarian', 'qa']);
    const ceo = body.agents.find((agent: any) => agent.name === 'ceo');
    for (const agent of body.agents) if (agent.name !== 'ceo') expect(agent.reportsTo).toBe(ceo.id);
  });

  it('lists, gets and renames; duplicate names (any case) are 409 and change nothing', async () => {
    const first = await createSeededWorkspace(server, 'Alpha');
    await createSeededWorkspace(server, 'Beta');
    const duplicate = await server.api('POST', '/api/workspaces', { name: 'alpha' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.field).toBe('name');
    const clash = await server.api('PATCH', `/api/workspaces/${first.id}`, { name: 'BETA' });
    expect(clash.status).toBe(409);
    const list = await server.api('GET', '/api/workspaces');
    expect(list.body.workspaces.map((workspace: any) => workspace.name)).toEqual(['Alpha', 'Beta']);
    expect(readdirSync(join(server.dataRoot, 'workspaces'))).toHaveLength(2);

    const renamed = await server.api('PATCH', `/api/workspaces/${first.id}`, { name: 'Gamma' });
    expect(renamed.status).toBe(200);
    expect((await server.api('GET', `/api/workspaces/${first.id}`)).body.name).toBe('Gamma');
  });

  it('rejects bad input with 400 naming the field, unknown ids with 404', async () => {
    const empty = await server.api('POST', '/api/workspaces', { name: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.field).toBe('name');
    const wrongType = await server.api('POST', '/api/workspaces', { name: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.field).toBe('name');
    const unknownField = await server.api('POST', '/api/workspaces', { name: 'X', colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.field).toBe('colour');
    const malformed = await server.api('POST', '/api/workspaces', '{"name":');
    expect(malformed.status).toBe(400);
    expect((await server.api('GET', '/api/workspaces/ws_missing')).status).toBe(404);
    expect((await server.api('GET', '/api/workspaces')).body.workspaces).toEqual([]);
    expect(existsSync(join(server.dataRoot, 'workspaces'))).toBe(false);
  });

  it('delete asks for the name as confirmation and removes the data directory', async () => {
    const workspace = await createSeededWorkspace(server, 'Doomed');
    const wrong = await server.api('DELETE', `/api/workspaces/${workspace.id}`, { confirmName: 'doomed' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.field).toBe('confirmName');
    expect(existsSync(workspace.dataDir)).toBe(true);
    const missing = await server.api('DELETE', `/api/workspaces/${workspace.id}`);
    expect(missing.status).toBe(400);
    const deleted = await server.api('DELETE', `/api/workspaces/${workspace.id}`, { confirmName: 'Doomed' });
    expect(deleted.status).toBe(204);
    expect(existsSync(workspace.dataDir)).toBe(false);
    expect((await server.api('GET', `/api/workspaces/${workspace.id}`)).status).toBe(404);
  });

  it('refuses to delete a workspace with a run in progress (409)', async () => {
    const workspace = await createSeededWorkspace(server, 'Busy');
    const { body } = await server.api('GET', `/api/workspaces/${workspace.id}/agents`);
    const handle = await server.running.app.workspaces.handle(workspace.id);
    await server.running.app.runs.record(workspace.id, handle.database.db, { agentId: body.agents[0].id, state: 'running' });
    const refused = await server.api('DELETE', `/api/workspaces/${workspace.id}`, { confirmName: 'Busy' });
    expect(refused.status).toBe(409);
    expect(existsSync(workspace.dataDir)).toBe(true);
  });

  it('serves the OpenAPI document without a token', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/workspaces', '/api/workspaces/{workspaceId}', '/api/workspaces/{workspaceId}/agents/{agentId}']),
    );
  });
});
