/**
 * TOOL-2: a run's MCP tools are derived from its servers' records (descriptions, fingerprints — a
 * hash per tool). They are derived once per version of a server's record: a run of an unchanged
 * server gets the same tools as the run before, and a change the operator makes (a tool's classes) is
 * in the next run's tools. The record is stored as the service stores it; no server process is needed
 * for what a run is given (its calls are another test's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/ids.js';
import { insertMcpServer, type McpServerRecord } from '../../src/store/repositories/mcp-server-repository.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';

let fixture: HarnessFixture;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
});
afterAll(async () => {
  await fixture.dispose();
});

describe("a run's MCP server tools", () => {
  it('are derived once per version of the server: unchanged, the next run gets the same tools; a change of classes is in the next run', async () => {
    const app = fixture.server.running.app;
    const agentId = Object.values(fixture.agents)[0]!.id;
    const { database } = await app.workspaces.handle(fixture.workspaceId);
    const now = nowIso();
    const record: McpServerRecord = {
      id: 'mcp_cache_test',
      name: 'notes',
      transport: 'http',
      command: null,
      args: [],
      network: null,
      readOnlyPaths: [],
      url: 'http://127.0.0.1:9/mcp',
      secrets: {},
      agents: [agentId],
      callTimeoutSeconds: 30,
      maxOutputBytes: 100_000,
      tools: [
        { name: 'read_note', description: 'Reads a note.', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, findings: [], verdict: 'pass' },
        { name: 'write_note', description: 'Writes a note.', inputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } }, findings: [], verdict: 'pass' },
      ],
      toolEffects: {},
      toolsListedAt: now,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertMcpServer(database.db, record);

    const first = await app.mcpServers.toolsForAgent(fixture.workspaceId, agentId);
    const second = await app.mcpServers.toolsForAgent(fixture.workspaceId, agentId);
    expect(first.map((tool) => tool.toolName)).toEqual(['read_note', 'write_note']);
    second.forEach((tool, index) => expect(tool).toBe(first[index]));

    await app.mcpServers.setToolEffects(fixture.workspaceId, record.id, 'read_note', { effects: [] });
    const changed = await app.mcpServers.toolsForAgent(fixture.workspaceId, agentId);
    expect(changed.find((tool) => tool.toolName === 'read_note')!.effects).toEqual([]);
    expect(changed[0]).not.toBe(first[0]);
    expect(first.find((tool) => tool.toolName === 'read_note')!.effects.length).toBeGreaterThan(0);
    const again = await app.mcpServers.toolsForAgent(fixture.workspaceId, agentId);
    again.forEach((tool, index) => expect(tool).toBe(changed[index]));
  });
});
