import { existsSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileOperations, type FileOperations } from '../../src/services/file-operations.js';
import { workspaceStoreRows } from '../support/test-database.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspace: { id: string; dataDir: string };
let agentsPath: string;

/** Counted over a second connection to the workspace's store (its SQLite file or PostgreSQL schema). */
async function agentRowCount(): Promise<number> {
  const [row] = await workspaceStoreRows<{ count: number }>(server.running.app.registry.location, workspace, 'select count(*) as count from agents');
  return row!.count;
}

function agentDirectories(): string[] {
  return readdirSync(join(workspace.dataDir, 'agents')).sort();
}

async function expectNothingWritten(before: { rows: number; dirs: string[] }) {
  expect((await agentRowCount())).toBe(before.rows);
  expect(agentDirectories()).toEqual(before.dirs);
}

async function ceoId(): Promise<string> {
  const { body } = await server.api('GET', `/api/workspaces/${workspace.id}/agents`);
  return body.agents.find((agent: any) => agent.name === 'ceo').id;
}

describe('agents (AG-1, AG-2)', () => {
  beforeEach(async () => {
    server = await startTestServer();
    workspace = await createSeededWorkspace(server);
    agentsPath = `/api/workspaces/${workspace.id}/agents`;
  });
  afterEach(async () => {
    await server.dispose();
  });

  it('creates a blank agent as the settings screen does, then every AG-1 field can be set', async () => {
    const blank = await server.api('POST', agentsPath, {});
    expect(blank.status).toBe(201);
    expect(blank.body).toMatchObject({ name: 'new-agent', title: '', persona: '', skills: [], adapterId: null, state: 'neverRun', workspaceId: workspace.id });
    const second = await server.api('POST', agentsPath);
    expect(second.body.name).toBe('new-agent-2');

    const updated = await server.api('PATCH', `${agentsPath}/${blank.body.id}`, {
      name: 'reviewer',
      title: 'Code Reviewer',
      persona: 'You review code.',
      systemPrompt: 'Always cite file and line.',
      skills: ['Code-Review', 'code-review', 'testing', 'TESTING'],
      adapterId: 'claude-code',
      modelId: 'claude-sonnet-4-5',
      effort: 'high',
      silenceTimeoutMinutes: 30,
      reportsTo: await ceoId(),
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'reviewer',
      skills: ['Code-Review', 'testing'],
      adapterId: 'claude-code',
      effort: 'high',
      silenceTimeoutMinutes: 30,
    });
    // Renaming moved the directory; links are lowercase (SKL-1).
    expect(existsSync(join(workspace.dataDir, 'agents', 'new-agent'))).toBe(false);
    const markdown = readFileSync(join(workspace.dataDir, 'agents', 'reviewer', 'AGENTS.md'), 'utf8');
    expect(markdown).toContain('## Agent instructions\n\nAlways cite file and line.');
    expect(markdown).toContain('reportsTo: ceo');
    expect(readlinkSync(join(workspace.dataDir, 'agents', 'reviewer', '.agents', 'skills', 'code-review'))).toContain('skills/code-review');
    const fetched = await server.api('GET', `${agentsPath}/${blank.body.id}`);
    expect(fetched.body).toEqual(updated.body);
  });

  it('rejects every invalid field with 400 naming it, and writes nothing', async () => {
    const before = { rows: (await agentRowCount()), dirs: agentDirectories() };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'Has Spaces' }, 'name'],
      [{ name: '-dash' }, 'name'],
      [{ name: 'x'.repeat(64) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ silenceTimeoutMinutes: 0 }, 'silenceTimeoutMinutes'],
      [{ silenceTimeoutMinutes: 241 }, 'silenceTimeoutMinutes'],
      [{ silenceTimeoutMinutes: 1.5 }, 'silenceTimeoutMinutes'],
      [{ skills: ['ok', '../escape'] }, 'skills.1'],
      [{ skills: 'testing' }, 'skills'],
      [{ adapterId: 'not-an-adapter' }, 'adapterId'],
      [{ effort: 'ludicrous' }, 'effort'],
      [{ contextSize: 10 }, 'contextSize'],
      [{ persona: ['not', 'text'] }, 'persona'],
      [{ workspaceId: 'ws_other' }, 'workspaceId'],
      [{ status: 'idle' }, 'status'],
    ];
    for (const [body, field] of cases) {
      const response = await server.api('POST', agentsPath, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.field, JSON.stringify(body)).toBe(field);
      expect(response.body.error.message).toBeTruthy();
    }
    await expectNothingWritten(before);
  });

  it('names are unique per workspace (409); reportsTo must exist here (404) and never form a cycle (400)', async () => {
    const before = { rows: (await agentRowCount()), dirs: agentDirectories() };
    const duplicate = await server.api('POST', agentsPath, { name: 'engineer' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.field).toBe('name');
    const missingManager = await server.api('POST', agentsPath, { name: 'orphan', reportsTo: 'ag_nowhere' });
    expect(missingManager.status).toBe(404);
    expect(missingManager.body.error.field).toBe('reportsTo');
    await expectNothingWritten(before);

    // A manager from another workspace is absent from this workspace's file: refused the same way.
    const other = await createSeededWorkspace(server, 'Other');
    const otherAgents = await server.api('GET', `/api/workspaces/${other.id}/agents`);
    const crossWorkspace = await server.api('POST', agentsPath, { name: 'cross', reportsTo: otherAgents.body.agents[0].id });
    expect(crossWorkspace.status).toBe(404);
    expect(crossWorkspace.body.error.field).toBe('reportsTo');

    const ceo = await ceoId();
    const { body } = await server.api('GET', agentsPath);
    const engineer = body.agents.find((agent: any) => agent.name === 'engineer');
    const self = await server.api('PATCH', `${agentsPath}/${engineer.id}`, { reportsTo: engineer.id });
    expect(self.status).toBe(400);
    expect(self.body.error.field).toBe('reportsTo');
    const cycle = await server.api('PATCH', `${agentsPath}/${ceo}`, { reportsTo: engineer.id });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.message).toMatch(/cycle/);
    const renameClash = await server.api('PATCH', `${agentsPath}/${engineer.id}`, { name: 'qa' });
    expect(renameClash.status).toBe(409);
    expect((await server.api('GET', `${agentsPath}/${ceo}`)).body.reportsTo).toBeNull();
    expect(existsSync(join(workspace.dataDir, 'agents', 'engineer', 'AGENTS.md'))).toBe(true);
    await expectNothingWritten({ rows: before.rows, dirs: before.dirs });
  });

  it('unknown agent ids are 404 on get, update and delete', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await server.api(method, `${agentsPath}/ag_missing`, method === 'PATCH' ? { title: 'x' } : undefined);
      expect(response.status, method).toBe(404);
      expect(response.body.error.field).toBe('agentId');
    }
    expect((await server.api('GET', '/api/workspaces/ws_missing/agents')).status).toBe(404);
  });

  it('deletes row and directory together; reports of a deleted manager are cleared', async () => {
    const ceo = await ceoId();
    const deleted = await server.api('DELETE', `${agentsPath}/${ceo}`);
    expect(deleted.status).toBe(204);
    expect(existsSync(join(workspace.dataDir, 'agents', 'ceo'))).toBe(false);
    const { body } = await server.api('GET', agentsPath);
    expect(body.agents).toHaveLength(4);
    expect(body.agents.every((agent: any) => agent.reportsTo === null)).toBe(true);
  });

  it('a real file-system failure leaves no row behind (AG-2)', async () => {
    const before = (await agentRowCount());
    const agentsDir = join(workspace.dataDir, 'agents');
    renameSync(agentsDir, `${agentsDir}.saved`);
    // A plain file where the agents/ directory must be makes every directory write fail for real.
    writeFileSync(agentsDir, 'not a directory');
    const response = await server.api('POST', agentsPath, { name: 'blocked' });
    expect(response.status).toBe(500);
    expect((await agentRowCount())).toBe(before);
    rmSync(agentsDir);
    renameSync(`${agentsDir}.saved`, agentsDir);
    expect((await server.api('GET', agentsPath)).body.agents.map((agent: any) => agent.name)).not.toContain('blocked');
  });
});

describe('atomic row and files under injected failures (AG-2)', () => {
  let failAt: keyof FileOperations | null = null;
  let failOn = '';
  const failing: FileOperations = Object.fromEntries(
    Object.entries(nodeFileOperations).map(([name, operation]) => [
      name,
      async (...args: string[]) => {
        if (failAt === name && args.some((arg) => arg.includes(failOn))) throw new Error(`injected ${name} failure`);
        return (operation as (...a: string[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as FileOperations;

  beforeEach(async () => {
    failAt = null;
    server = await startTestServer({ files: failing });
    workspace = await createSeededWorkspace(server);
    agentsPath = `/api/workspaces/${workspace.id}/agents`;
  });
  afterEach(async () => {
    await server.dispose();
  });

  it.each([
    ['mkdir', 'staging'],
    ['writeFile', 'AGENTS.md'],
    ['symlink', 'testing'],
    ['rename', 'staging'],
  ] as const)('a %s failure on create leaves neither row nor directory', async (operation, match) => {
    const before = { rows: (await agentRowCount()), dirs: agentDirectories() };
    failAt = operation;
    failOn = match;
    const response = await server.api('POST', agentsPath, { name: 'doomed', skills: ['testing'] });
    expect(response.status).toBe(500);
    failAt = null;
    await expectNothingWritten(before);
  });

  it('a failure while renaming keeps the old row and the old directory', async () => {
    const { body } = await server.api('GET', agentsPath);
    const engineer = body.agents.find((agent: any) => agent.name === 'engineer');
    const before = { rows: (await agentRowCount()), dirs: agentDirectories() };
    failAt = 'symlink';
    failOn = 'implementation';
    const response = await server.api('PATCH', `${agentsPath}/${engineer.id}`, { name: 'builder' });
    expect(response.status).toBe(500);
    failAt = null;
    await expectNothingWritten(before);
    expect((await server.api('GET', `${agentsPath}/${engineer.id}`)).body.name).toBe('engineer');
    expect(readFileSync(join(workspace.dataDir, 'agents', 'engineer', 'AGENTS.md'), 'utf8')).toContain('name: engineer');
  });

  it('a failure while deleting keeps the row and the directory', async () => {
    const { body } = await server.api('GET', agentsPath);
    const qa = body.agents.find((agent: any) => agent.name === 'qa');
    failAt = 'rename';
    failOn = 'qa';
    const response = await server.api('DELETE', `${agentsPath}/${qa.id}`);
    expect(response.status).toBe(500);
    failAt = null;
    expect((await server.api('GET', `${agentsPath}/${qa.id}`)).status).toBe(200);
    expect(existsSync(join(workspace.dataDir, 'agents', 'qa', 'AGENTS.md'))).toBe(true);
  });
});
