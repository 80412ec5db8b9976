import { describe, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { runOperatorMcpScenario } from '../support/operator-mcp-scenario.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * TOOL-2 on the Claude Agent SDK: the real SDK gets an operator's MCP server only through the Control
 * Center's MCP endpoint (its only MCP server), where each call passes the gate.
 */
const start = useRunnerFixture('claude-agent-sdk', ({ app, base }) => new ClaudeAgentSdkTransport({ ...base, askUser: questionCards(app) }));

describe('Claude Agent SDK with operators\' MCP servers (TOOL-2)', () => {
  it('agent: an operator MCP tool reaches the Claude Agent SDK only over the Control Center MCP endpoint, each call gated', async () => {
    await runOperatorMcpScenario(await start());
  });
});
