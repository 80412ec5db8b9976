import { describe, expect, it } from 'vitest';
import { AcpTransport } from '../../src/adapters/acp/acp-transport.js';
import { runOperatorMcpScenario } from '../support/operator-mcp-scenario.js';
import { REAL_ACP_AGENT } from '../support/real-acp-agent.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * TOOL-2 on the ACP transport, against a real ACP agent from npm (`@zed-industries/claude-agent-acp`):
 * the agent gets an operator's MCP server only through the Control Center's MCP endpoint, the one
 * server `session/new` names, where each call passes the gate; its permission request for such a tool
 * is allowed so that the endpoint, not the command gate, decides.
 */
const start = useRunnerFixture('acp', ({ base }) => new AcpTransport({ ...base, commands: { '*': { command: process.execPath, args: [REAL_ACP_AGENT] } } }));

describe('ACP with operators\' MCP servers (TOOL-2)', () => {
  it('agent: an operator MCP tool reaches an ACP agent (claude-agent-acp) only over the Control Center MCP endpoint, each call gated', async () => {
    const f = await start();
    await runOperatorMcpScenario(f);
    const first = f.model.requests.find((request) => request.path.startsWith('/v1/messages'))!;
    expect(first.toolNames).toEqual(expect.arrayContaining(['mcp__control-center__mcp__everything__echo', 'mcp__control-center__mcp__everything__get-sum']));
    expect(first.toolNames.filter((name) => name.startsWith('mcp__') && !name.startsWith('mcp__control-center__'))).toEqual([]);
  }, 240_000);
});
