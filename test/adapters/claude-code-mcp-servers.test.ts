import { afterEach, describe, expect, it } from 'vitest';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { runOperatorMcpScenario } from '../support/operator-mcp-scenario.js';

/**
 * TOOL-2 on an external runner: the real `claude` binary gets an operator's MCP server only through
 * the Control Center's own MCP endpoint, so every call passes the same gate as the built-in harness's;
 * its own configuration takes no other server (`--strict-mcp-config`).
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('Claude Code with operators\' MCP servers (TOOL-2)', () => {
  it('an operator MCP tool reaches Claude Code only over the Control Center MCP endpoint, each call gated', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', operatorConnected: false, transport: { sandbox: 'none', allowUnsandboxed: true } });
    await runOperatorMcpScenario(fixture);
    // Claude Code offers them as tools of its one MCP server, the Control Center's.
    const first = fixture.model.requests.find((request) => request.path.startsWith('/v1/messages'))!;
    expect(first.toolNames).toEqual(expect.arrayContaining(['mcp__control-center__mcp__everything__echo', 'mcp__control-center__mcp__everything__get-sum']));
    expect(first.toolNames.filter((name) => name.startsWith('mcp__') && !name.startsWith('mcp__control-center__'))).toEqual([]);
  });
});
