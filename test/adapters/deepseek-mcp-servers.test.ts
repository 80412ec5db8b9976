import { describe, it } from 'vitest';
import { useDeepSeekFixture } from '../support/deepseek-fixture.js';
import { runOperatorMcpScenario } from '../support/operator-mcp-scenario.js';

/**
 * TOOL-2 on DeepSeek: the real Claude Agent SDK, pointed at DeepSeek's Anthropic-compatible endpoint
 * (the scripted model server), gets an operator's MCP server only through the Control Center's MCP
 * endpoint, its only MCP server, where each call passes the gate.
 */
const start = useDeepSeekFixture();

describe('DeepSeek with operators\' MCP servers (TOOL-2)', () => {
  it('agent: an operator MCP tool reaches DeepSeek only over the Control Center MCP endpoint, each call gated', async () => {
    await runOperatorMcpScenario(await start());
  }, 240_000);
});
