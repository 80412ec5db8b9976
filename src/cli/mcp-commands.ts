import type { Command } from 'commander';
import type { McpServer } from '../schemas/mcp-server.js';
import type { Workspace } from '../schemas/workspace.js';
import type { ApiClient } from './api-client.js';

/** `--flag a --flag b` collected into a list. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `NAME=VALUE` pairs (environment variables, headers) into an object; a pair without `=` is refused. */
function pairs(list: readonly string[], flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf('=');
    if (at <= 0) throw new Error(`${flag} takes NAME=VALUE, got '${item}'`);
    result[item.slice(0, at)] = item.slice(at + 1);
  }
  return result;
}

/** One server as a line, then each listed tool with its classes and the scan of its description. */
function printServer(server: McpServer): void {
  const where = server.transport === 'stdio' ? `${server.command} ${server.args.join(' ')}`.trim() : server.url;
  const secrets = Object.keys(server.secrets);
  console.log(`${server.name} (${server.transport}) ${where}${secrets.length ? `  secrets: ${secrets.join(', ')}` : ''}  agents: ${server.agents.length}`);
  if (server.lastError) console.log(`  last error: ${server.lastError}`);
  if (!server.tools) {
    console.log('  tools: not listed yet (control-center mcp tools <name>)');
    return;
  }
  for (const tool of server.tools) {
    const classes = tool.effectsAssigned ? tool.effects.join(', ') || 'none (read level)' : 'every class (not reviewed: every call asks)';
    console.log(`  ${tool.agentToolName || tool.name}  [${tool.verdict}]  ${classes}`);
    for (const finding of tool.findings) console.log(`    [${finding.severity}] ${finding.ruleId} — ${finding.message}`);
  }
}

/**
 * `control-center mcp add | list | tools | classes | enable | disable | remove` (TOOL-2): operators'
 * MCP servers from the command line. Agents are named by name; secrets (`--env`, `--header`) are sent
 * once and never printed back.
 */
export function registerMcpCommands(program: Command, client: () => Promise<ApiClient>, resolveWorkspace: (api: ApiClient, idOrName?: string) => Promise<Workspace>): void {
  const mcp = program.command('mcp').description("operators' MCP servers: add, list their tools, assign effect classes").option('-w, --workspace <idOrName>', 'workspace (default: the only one)');
  const context = async () => {
    const api = await client();
    const workspace = await resolveWorkspace(api, (mcp.opts() as { workspace?: string }).workspace);
    return { api, base: `/api/workspaces/${workspace.id}/mcp-servers`, agentsBase: `/api/workspaces/${workspace.id}/agents` };
  };
  const agentIds = async (api: ApiClient, agentsBase: string, names: readonly string[]) => {
    const { agents } = await api.request<{ agents: Array<{ id: string; name: string }> }>('GET', agentsBase);
    return names.map((name) => {
      const agent = agents.find((candidate) => candidate.name === name || candidate.id === name);
      if (!agent) throw new Error(`no agent named '${name}'`);
      return agent.id;
    });
  };
  const serverNamed = async (api: ApiClient, base: string, name: string) => {
    const { servers } = await api.request<{ servers: McpServer[] }>('GET', base);
    const server = servers.find((candidate) => candidate.name === name || candidate.id === name);
    if (!server) throw new Error(`no MCP server named '${name}'`);
    return server;
  };

  mcp
    .command('add <name>')
    .description('add a stdio server (--command, absolute path) or a streamable HTTP server (--url); its tools are listed at once')
    .option('--command <path>', 'the server program (absolute path; no shell)')
    .option('--arg <value>', 'one literal argument (repeatable)', collect, [])
    .option('--env <NAME=VALUE>', 'an environment variable for a stdio server, write-only (repeatable)', collect, [])
    .option('--network <none|host>', 'a stdio server’s network (default none)')
    .option('--read-only-path <path>', 'a path the sandboxed stdio server may read (repeatable)', collect, [])
    .option('--url <url>', 'the URL of a streamable HTTP server')
    .option('--header <NAME=VALUE>', 'a request header for an HTTP server, write-only (repeatable)', collect, [])
    .option('--agent <name>', 'an agent that gets the server’s tools (repeatable)', collect, [])
    .option('--timeout <seconds>', 'time limit of one call (default 60)')
    .option('--max-output <bytes>', 'cap of one call’s answer (default 65536)')
    .action(async (name: string, options: { command?: string; arg: string[]; env: string[]; network?: string; readOnlyPath: string[]; url?: string; header: string[]; agent: string[]; timeout?: string; maxOutput?: string }) => {
      const { api, base, agentsBase } = await context();
      if (Boolean(options.command) === Boolean(options.url)) throw new Error('give either --command (a stdio server) or --url (an HTTP server)');
      const common = {
        name,
        agents: await agentIds(api, agentsBase, options.agent),
        ...(options.timeout ? { callTimeoutSeconds: Number(options.timeout) } : {}),
        ...(options.maxOutput ? { maxOutputBytes: Number(options.maxOutput) } : {}),
      };
      const body = options.command
        ? { ...common, transport: 'stdio', command: options.command, args: options.arg, env: pairs(options.env, '--env'), readOnlyPaths: options.readOnlyPath, ...(options.network ? { network: options.network } : {}) }
        : { ...common, transport: 'http', url: options.url, headers: pairs(options.header, '--header') };
      const created = await api.request<McpServer>('POST', base, body);
      const listed = await api.request<McpServer>('POST', `${base}/${created.id}/tools/list`);
      printServer(listed);
      if (listed.lastError) process.exitCode = 2;
    });

  mcp.command('list').description('every server with its tools, their classes and scan verdicts').action(async () => {
    const { api, base } = await context();
    const { servers } = await api.request<{ servers: McpServer[] }>('GET', base);
    if (servers.length === 0) console.log('no MCP servers');
    for (const server of servers) printServer(server);
  });

  mcp
    .command('tools <server>')
    .description('connect now and list the server’s tools again (a changed tool loses its classes)')
    .action(async (serverName: string) => {
      const { api, base } = await context();
      const server = await serverNamed(api, base, serverName);
      const listed = await api.request<McpServer>('POST', `${base}/${server.id}/tools/list`);
      printServer(listed);
      if (listed.lastError) process.exitCode = 2;
    });

  mcp
    .command('classes <server> <tool> [classes...]')
    .description('assign a tool its effect classes; `none` declares a tool that changes nothing')
    .action(async (serverName: string, tool: string, classes: string[]) => {
      const { api, base } = await context();
      const server = await serverNamed(api, base, serverName);
      const effects = classes.length === 1 && classes[0] === 'none' ? [] : classes;
      if (effects.length === 0 && classes[0] !== 'none') throw new Error('name the classes, or `none` for a tool that changes nothing');
      printServer(await api.request<McpServer>('PUT', `${base}/${server.id}/tools/${encodeURIComponent(tool)}/effects`, { effects }));
    });

  for (const [verb, enable] of [['enable', true], ['disable', false]] as const) {
    mcp
      .command(`${verb} <server> <agent>`)
      .description(`${enable ? 'give' : 'take away from'} an agent the server’s tools`)
      .action(async (serverName: string, agentName: string) => {
        const { api, base, agentsBase } = await context();
        const server = await serverNamed(api, base, serverName);
        const [agentId] = await agentIds(api, agentsBase, [agentName]);
        const agents = enable ? [...new Set([...server.agents, agentId!])] : server.agents.filter((id) => id !== agentId);
        printServer(await api.request<McpServer>('PATCH', `${base}/${server.id}`, { agents }));
      });
  }

  mcp
    .command('remove <server>')
    .description('remove the server (its connection ends; agents lose its tools)')
    .action(async (serverName: string) => {
      const { api, base } = await context();
      const server = await serverNamed(api, base, serverName);
      await api.request('DELETE', `${base}/${server.id}`);
      console.log(`removed ${server.name}`);
    });
}
