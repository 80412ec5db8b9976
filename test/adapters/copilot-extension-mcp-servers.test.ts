import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CopilotTransport } from '../../src/adapters/copilot/copilot-transport.js';
import { runOperatorMcpScenario } from '../support/operator-mcp-scenario.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * TOOL-2 on Copilot's extension engine: the real `@github/copilot` runtime gets an operator's MCP
 * server only through the Control Center's MCP endpoint, the one MCP server given to its session,
 * where each call passes the gate.
 */
/** The runtime unpacks ≈235 MB on first start; shared with the other Copilot tests (outside /tmp, which the sandbox replaces). */
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

const start = useRunnerFixture('copilot-extension', ({ app, base }) => new CopilotTransport({ engine: 'extension', ...base, askUser: questionCards(app), runtimeCacheDir }));

describe('Copilot extension engine with operators\' MCP servers (TOOL-2)', () => {
  it('agent: an operator MCP tool reaches the Copilot extension engine only over the Control Center MCP endpoint, each call gated', async () => {
    const f = await start();
    await runOperatorMcpScenario(f);
    const first = f.model.requests.find((request) => request.path.endsWith('/responses'))!;
    expect(first.toolNames).toEqual(expect.arrayContaining(['control-center-mcp__everything__echo', 'control-center-mcp__everything__get-sum']));
    expect(first.toolNames.filter((name) => name.includes('mcp__') && !name.startsWith('control-center-'))).toEqual([]);
  }, 240_000);
});
