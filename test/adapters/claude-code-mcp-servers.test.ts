import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

/**
 * TOOL-2 on an external runner: the real `claude` binary gets an operator's MCP server
 * (@modelcontextprotocol/server-everything over stdio) only through the Control Center's own MCP
 * endpoint, so every call passes the same gate as the built-in harness's; its own configuration
 * takes no other server (`--strict-mcp-config`).
 */
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const modelRequests = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages'));

describe('Claude Code with operators\' MCP servers (TOOL-2)', () => {
  it('an operator MCP tool reaches Claude Code only over the Control Center MCP endpoint, each call gated', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', operatorConnected: false, transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const base = `/api/workspaces/${f.workspaceId}/mcp-servers`;
    const created = await f.api('POST', base, { name: 'everything', transport: 'stdio', command: process.execPath, args: [everything, 'stdio'], agents: [f.agentId] });
    expect(created.status).toBe(201);
    expect((await f.api('POST', `${base}/${created.body.id}/tools/list`)).body.lastError).toBeNull();
    await f.api('PUT', `${base}/${created.body.id}/tools/echo/effects`, { effects: [] });
    f.model.script(
      reply().tool('mcp__control-center__mcp__everything__echo', { message: 'through the gate' }),
      // Unreviewed: every class, so it asks — and with no operator connected it is refused (fail closed).
      reply().tool('mcp__control-center__mcp__everything__get-sum', { a: 1, b: 2 }),
      reply().text('done'),
    );
    const detail = await f.waitForRun(await f.send('use the everything server'));
    expect(detail.run.state).toBe('completed');
    expect(modelRequests(f)[0]!.toolNames).toEqual(expect.arrayContaining(['mcp__control-center__mcp__everything__echo', 'mcp__control-center__mcp__everything__get-sum']));
    const echo = detail.toolCalls.find((call: any) => call.name === 'mcp__everything__echo');
    expect(echo).toMatchObject({ executed: true, isError: false, decision: 'allow' });
    expect(echo.output).toContain('through the gate');
    const sum = detail.toolCalls.find((call: any) => call.name === 'mcp__everything__get-sum');
    expect(sum).toMatchObject({ executed: false, isError: true, decision: 'ask' });
    expect(sum.output).toContain('no operator is connected to approve it');
    expect(modelRequests(f)[1]!.lastToolResult?.content).toContain('through the gate');
    expect(modelRequests(f)[2]!.lastToolResult?.content).toContain('no operator is connected');
  });
});
