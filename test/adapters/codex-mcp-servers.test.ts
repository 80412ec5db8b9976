import { describe, expect, it } from 'vitest';
import { CodexTransport } from '../../src/adapters/codex/codex-transport.js';
import { runOperatorMcpScenario } from '../support/operator-mcp-scenario.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * TOOL-2 on Codex: the real `codex app-server` gets an operator's MCP server only through the Control
 * Center's MCP endpoint — the one MCP server of its server-owned config.toml — where each call passes
 * the gate; Codex's own approval of MCP calls is off because the endpoint decides.
 */
const start = useRunnerFixture('codex', ({ app, base }) => new CodexTransport({ ...base, askUser: questionCards(app) }));

describe('Codex with operators\' MCP servers (TOOL-2)', () => {
  it('agent: an operator MCP tool reaches Codex only over the Control Center MCP endpoint, each call gated', async () => {
    const f = await start();
    await runOperatorMcpScenario(f);
    // Codex offers them in the namespace of its one MCP server, the Control Center's.
    const first = f.model.requests.find((request) => request.path.endsWith('/responses'))!;
    expect(first.toolNames).toEqual(expect.arrayContaining(['mcp__control_center.mcp__everything__echo', 'mcp__control_center.mcp__everything__get_sum']));
    expect(first.toolNames.filter((name) => name.startsWith('mcp__') && !name.startsWith('mcp__control_center'))).toEqual([]);
  }, 180_000);
});
