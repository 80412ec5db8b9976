/**
 * How the npm Grok CLI reaches the Control Center's MCP server (RLY-7, HAR-4). The CLI reads
 * `mcpServers` from `<cwd>/.grok/settings.json` (its "project settings"; the preload makes a
 * read-only folder of the host's launch directory that cwd), but of its transports only `stdio` works: its `http` and `sse`
 * transports post to an invented `/rpc` path and its `streamable_http` one always throws. So the
 * CLI starts this small bridge as a stdio MCP server, and the bridge forwards `tools/list` and
 * `tools/call` to the run's streamable HTTP MCP endpoint with the run token. The bridge runs inside
 * the runner's sandbox like the CLI (loopback to the server only); the token reaches it through the
 * environment the CLI passes on, never through a file.
 */

/** The name the CLI knows the server by: its tools are `mcp__control-center__<tool>`. */
export const GROK_MCP_SERVER_NAME = 'control-center';

/** Environment variables the bridge reads (set by the transport; the CLI passes its environment on). */
export const GROK_MCP_BRIDGE_VARIABLES = {
  url: 'CONTROL_CENTER_GROK_MCP_URL',
  token: 'CONTROL_CENTER_GROK_MCP_TOKEN',
} as const;

/**
 * How long one product-tool call may take through the bridge: a `relay_tool` write in ask mode waits
 * on a question card for as long as the workspace's question timeout (the SDK's default is 60 s).
 */
export const GROK_MCP_CALL_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/** The CLI's tool name for a Control Center tool. */
export function grokMcpToolName(tool: string): string {
  return `mcp__${GROK_MCP_SERVER_NAME}__${tool}`;
}

/** The `.grok/settings.json` that gives the CLI the bridge and nothing else. */
export function grokMcpSettings(input: { node: string; bridgePath: string }): string {
  const server = { name: GROK_MCP_SERVER_NAME, transport: { type: 'stdio', command: input.node, args: [input.bridgePath] } };
  return `${JSON.stringify({ mcpServers: { [GROK_MCP_SERVER_NAME]: server } }, null, 2)}\n`;
}

/** The bridge module's source; `sdk` maps the MCP SDK modules it imports to their `file:` URLs. */
export function grokMcpBridgeSource(sdk: { client: string; streamableHttp: string; server: string; stdio: string; types: string }): string {
  return `// Written by Control Center for one Grok CLI run (src/adapters/grok/grok-mcp-bridge.ts).
import { Client } from ${JSON.stringify(sdk.client)};
import { StreamableHTTPClientTransport } from ${JSON.stringify(sdk.streamableHttp)};
import { Server } from ${JSON.stringify(sdk.server)};
import { StdioServerTransport } from ${JSON.stringify(sdk.stdio)};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdk.types)};

const url = process.env.${GROK_MCP_BRIDGE_VARIABLES.url};
const token = process.env.${GROK_MCP_BRIDGE_VARIABLES.token};
if (!url || !token) {
  process.stderr.write('control-center-grok-mcp: no MCP endpoint or token in the environment\\n');
  process.exit(2);
}
const upstream = new Client({ name: 'control-center-grok-bridge', version: '1.0.0' });
await upstream.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer ' + token } } }));
const server = new Server({ name: ${JSON.stringify(GROK_MCP_SERVER_NAME)}, version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (request) => upstream.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, async (request) => upstream.callTool(request.params, undefined, { timeout: ${GROK_MCP_CALL_TIMEOUT_MS} }));
await server.connect(new StdioServerTransport());
`;
}

/** The `file:` URLs of the MCP SDK modules the bridge needs, as this server resolves them. */
export function mcpSdkModuleUrls(): Parameters<typeof grokMcpBridgeSource>[0] {
  return {
    client: import.meta.resolve('@modelcontextprotocol/sdk/client/index.js'),
    streamableHttp: import.meta.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    server: import.meta.resolve('@modelcontextprotocol/sdk/server/index.js'),
    stdio: import.meta.resolve('@modelcontextprotocol/sdk/server/stdio.js'),
    types: import.meta.resolve('@modelcontextprotocol/sdk/types.js'),
  };
}
