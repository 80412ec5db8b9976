import { afterEach, describe, expect, it } from 'vitest';
import { GrokTransport } from '../../../src/adapters/grok/grok-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../../support/claude-code-fixture.js';
import { runOperatorMcpScenario } from '../../support/operator-mcp-scenario.js';

/**
 * TOOL-2 on Grok: the real `@vibe-kit/grok-cli` gets an operator's MCP server only through the Control
 * Center's MCP endpoint — the one stdio server of the host-written `.grok/settings.json`, a bridge to
 * the endpoint with the run token — where each call passes the gate.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('Grok with operators\' MCP servers (TOOL-2)', () => {
  it('agent: an operator MCP tool reaches the Grok CLI only over the Control Center MCP endpoint, each call gated', async () => {
    fixture = await startClaudeCodeFixture({
      adapter: { id: 'grok', transport: (app, dataRoot) => new GrokTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true }) },
    });
    await runOperatorMcpScenario(fixture);
    const first = fixture.model.requests.find((request) => request.path.endsWith('/chat/completions'))!;
    expect(first.toolNames).toEqual(expect.arrayContaining(['mcp__control-center__mcp__everything__echo', 'mcp__control-center__mcp__everything__get-sum']));
    expect(first.toolNames.filter((name) => name.startsWith('mcp__') && !name.startsWith('mcp__control-center__'))).toEqual([]);
  }, 240_000);
});
