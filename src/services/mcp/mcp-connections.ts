import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, sep } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { cappedResponseFetch } from '../../llm/capped-response-fetch.js';
import type { ProcessLimits } from '../../sandbox/process-limits.js';
import { sanitizedEnv } from '../../sandbox/sanitized-env.js';
import type { SandboxBackend, SandboxLaunch, SandboxSpec } from '../../sandbox/sandbox-spec.js';
import { configuredSandbox, type SandboxSelection } from '../../sandbox/select-sandbox.js';
import type { McpServerRecord } from '../../store/repositories/mcp-server-repository.js';
import { McpStdioTransport } from './mcp-stdio-transport.js';
import { formatMcpToolResult } from './mcp-tool-result.js';

/** How the Control Center starts and reaches operators' MCP servers. */
export interface McpConnectionsOptions {
  /** The OS sandbox stdio servers run in (`auto`: the host's). */
  sandbox?: 'auto' | 'none' | SandboxBackend;
  /** SEC-6: start a stdio server when no OS sandbox would wrap it (the operator's opt-in for runners applies). */
  allowUnsandboxed?: boolean;
  /** Paths a stdio server must not see (the data root: operator token, databases). */
  hiddenPaths: string[];
  /** SEC-11: the process limits of every stdio server. */
  limits?: Partial<ProcessLimits>;
  /** The server's environment, filtered by the sandbox's allowlist before a stdio server sees any of it. */
  env: Record<string, string | undefined>;
  /** How long connecting (start + initialize + listing) may take (default 30 s). */
  connectTimeoutMs?: number;
}

/** What one call of a server's tool gave back, already formatted and capped for the model. */
export interface McpCallOutcome {
  content: string;
  isError: boolean;
  details: Record<string, unknown>;
}

/** A live connection and what its server listed on it. */
interface LiveConnection {
  client: Client;
  transport: Transport;
  /** The configuration it was made with; a changed server gets a new connection. */
  fingerprint: string;
  /** The tools the server lists now, by name; null when a list-changed notice asks for a fresh listing. */
  tools: Map<string, McpTool> | null;
  ended: boolean;
  endReason: string | null;
}

/** One fingerprint of what a listed tool says, compared with the listing the operator reviewed. */
export function listedToolFingerprint(tool: { description?: string | undefined; inputSchema: unknown }): string {
  return createHash('sha256').update(JSON.stringify([tool.description ?? '', tool.inputSchema])).digest('hex');
}

/**
 * The Control Center's client side of operators' MCP servers (TOOL-2): one connection per server,
 * made on first use and made again after the server exited, hung or flooded (lazy restart). Every
 * call has its server's time limit and output cap; whatever the server does, a call ends with a
 * result the model can read, never an exception that fails the run. A tool the server no longer
 * lists as the operator reviewed it (a changed description or schema: a server that lies about its
 * tools) is refused until the operator lists the tools again.
 */
export class McpConnections {
  private readonly live = new Map<string, Promise<LiveConnection>>();
  private sandboxChoice: Promise<SandboxSelection> | null = null;

  constructor(private readonly options: McpConnectionsOptions) {}

  /**
   * The hidden path (the data root, the home) that `path` is or lies in, if any: a stdio server's
   * readable paths may not re-expose what the sandbox hides (the operator token, the databases). A
   * path that holds a hidden one is fine: the deeper mount, the hiding one, wins.
   */
  hiddenPathAt(path: string): string | null {
    const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : `${outer}${sep}`);
    return [...this.options.hiddenPaths, homedir()].find((hidden) => within(path, hidden)) ?? null;
  }

  /** Connects (or reuses the connection) and lists every tool the server offers now. */
  async listTools(workspaceId: string, server: McpServerRecord): Promise<McpTool[]> {
    const connection = await this.connection(workspaceId, server);
    return [...(await this.currentTools(connection, server)).values()];
  }

  /**
   * Calls one tool. `reviewed` is the fingerprint of the listing the operator assigned classes to: a
   * tool listed differently now is refused, so what the operator judged is what runs.
   */
  async call(workspaceId: string, server: McpServerRecord, toolName: string, input: Record<string, unknown>, reviewed: string, signal: AbortSignal): Promise<McpCallOutcome> {
    const timeoutMs = server.callTimeoutSeconds * 1000;
    let connection: LiveConnection;
    try {
      connection = await this.connection(workspaceId, server);
    } catch (error) {
      return { content: `The MCP server '${server.name}' could not be reached: ${messageOf(error)}`, isError: true, details: { server: server.name, failure: 'connect' } };
    }
    let tools: Map<string, McpTool>;
    try {
      tools = await this.currentTools(connection, server);
    } catch (error) {
      this.drop(workspaceId, server.id, connection);
      return { content: `The MCP server '${server.name}' could not list its tools: ${messageOf(error)}`, isError: true, details: { server: server.name, failure: 'list' } };
    }
    const listed = tools.get(toolName);
    if (!listed) {
      return { content: `The MCP server '${server.name}' no longer lists the tool '${toolName}'; the call was not made. An operator can list the server's tools again in Settings → MCP servers.`, isError: true, details: { server: server.name, failure: 'unlisted' } };
    }
    if (listedToolFingerprint(listed) !== reviewed) {
      return {
        content: `The MCP server '${server.name}' now describes the tool '${toolName}' differently from what the operator reviewed; the call was not made. An operator must list the server's tools again (Settings → MCP servers) before it can be used.`,
        isError: true,
        details: { server: server.name, failure: 'changed' },
      };
    }
    try {
      const result = (await connection.client.callTool({ name: toolName, arguments: input }, undefined, { timeout: timeoutMs, maxTotalTimeout: timeoutMs, signal })) as CallToolResult;
      return formatMcpToolResult(server, toolName, result);
    } catch (error) {
      if (signal.aborted) return { content: `The call of '${toolName}' was cancelled.`, isError: true, details: { server: server.name, failure: 'cancelled' } };
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        // A server that let one call hang may hang the next: it is stopped and started again on the next call.
        this.drop(workspaceId, server.id, connection);
        return {
          content: `The MCP server '${server.name}' did not answer '${toolName}' within ${server.callTimeoutSeconds} s; the call failed and the server was stopped (it is started again on the next call).`,
          isError: true,
          details: { server: server.name, failure: 'timeout' },
        };
      }
      if (connection.ended) {
        this.drop(workspaceId, server.id, connection);
        return {
          content: `The MCP server '${server.name}' stopped during '${toolName}': ${connection.endReason ?? 'the connection closed'}. The call failed; the server is started again on the next call.`,
          isError: true,
          details: { server: server.name, failure: 'ended' },
        };
      }
      return { content: `The MCP server '${server.name}' refused '${toolName}': ${messageOf(error)}`, isError: true, details: { server: server.name, failure: 'error' } };
    }
  }

  /** Ends a server's connection (its configuration changed, or it was removed). */
  async disconnect(workspaceId: string, serverId: string): Promise<void> {
    const pending = this.live.get(key(workspaceId, serverId));
    this.live.delete(key(workspaceId, serverId));
    const connection = await pending?.catch(() => null);
    await connection?.client.close().catch(() => undefined);
  }

  /** Ends every connection (the server stops). */
  async closeAll(): Promise<void> {
    const pending = [...this.live.values()];
    this.live.clear();
    await Promise.all(pending.map(async (connection) => (await connection.catch(() => null))?.client.close().catch(() => undefined)));
  }

  private drop(workspaceId: string, serverId: string, connection: LiveConnection): void {
    const id = key(workspaceId, serverId);
    void this.live.get(id)?.then((current) => {
      if (current === connection) this.live.delete(id);
    }, () => undefined);
    void connection.client.close().catch(() => undefined);
  }

  private async connection(workspaceId: string, server: McpServerRecord): Promise<LiveConnection> {
    const id = key(workspaceId, server.id);
    const fingerprint = configFingerprint(server);
    const existing = this.live.get(id);
    if (existing) {
      const connection = await existing.catch(() => null);
      if (connection && !connection.ended && connection.fingerprint === fingerprint) return connection;
      if (this.live.get(id) === existing) this.live.delete(id);
      if (connection) void connection.client.close().catch(() => undefined);
    }
    const made = this.connect(server, fingerprint);
    this.live.set(id, made);
    made.catch(() => {
      if (this.live.get(id) === made) this.live.delete(id);
    });
    return made;
  }

  private async connect(server: McpServerRecord, fingerprint: string): Promise<LiveConnection> {
    const timeoutMs = this.options.connectTimeoutMs ?? 30_000;
    const transport = server.transport === 'stdio' ? await this.stdioTransport(server) : httpTransport(server);
    const client = new Client({ name: 'control-center', version: '0.1.0' }, { capabilities: {} });
    const connection: LiveConnection = { client, transport, fingerprint, tools: null, ended: false, endReason: null };
    client.onclose = () => {
      connection.ended = true;
      connection.endReason ??= transport instanceof McpStdioTransport ? transport.endReason : 'the connection closed';
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      connection.tools = null;
    });
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      // A stdio server that died while starting says why on stderr; its exit line already carries the last lines.
      const ended = transport instanceof McpStdioTransport ? transport.endReason : null;
      throw new Error(ended ?? messageOf(error));
    }
    return connection;
  }

  private async currentTools(connection: LiveConnection, server: McpServerRecord): Promise<Map<string, McpTool>> {
    if (connection.tools) return connection.tools;
    const tools = new Map<string, McpTool>();
    let cursor: string | undefined;
    // A server that pages forever is cut off: 50 pages is far past any real server's tool list.
    for (let page = 0; page < 50; page += 1) {
      const listed = await connection.client.listTools(cursor ? { cursor } : undefined, { timeout: server.callTimeoutSeconds * 1000 });
      for (const tool of listed.tools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    connection.tools = tools;
    return tools;
  }

  /** A stdio server in the runner sandbox (SEC-3 mounts, SEC-11 limits), without a shell. */
  private async stdioTransport(server: McpServerRecord): Promise<McpStdioTransport> {
    this.sandboxChoice ??= configuredSandbox(this.options.sandbox ?? 'auto');
    const { backend, detail } = await this.sandboxChoice;
    if (!backend && !this.options.allowUnsandboxed) {
      throw new Error(`a stdio MCP server needs an OS sandbox and this server has none (${detail}); install bubblewrap (Linux) or start the server with --allow-unsandboxed-runners`);
    }
    const exposed = server.readOnlyPaths.find((path) => this.hiddenPathAt(path) !== null);
    if (exposed) throw new Error(`readOnlyPaths: '${exposed}' would show the server what the sandbox hides (the data root or the home)`);
    const command = server.command ?? '';
    const env = sanitizedEnv(this.options.env as NodeJS.ProcessEnv, { HOME: '/tmp', TMPDIR: '/tmp', ...server.secrets });
    let launch: SandboxLaunch | null = null;
    if (backend) {
      const spec: SandboxSpec = {
        command,
        args: server.args,
        cwd: '/tmp',
        writable: [],
        readOnly: [dirname(command), ...server.readOnlyPaths],
        hidden: [...this.options.hiddenPaths, homedir()],
        privateTmp: ['/tmp'],
        network: server.network === 'host' ? { kind: 'host', reason: 'the operator gave this MCP server the host network' } : { kind: 'loopback', ports: [] },
        // A server lives across runs: its CPU time adds up, so only the per-launch bounds apply.
        limits: { ...this.options.limits, cpuSeconds: null, stopWhenReached: false },
      };
      launch = await backend.prepare(spec);
    }
    const prepared = launch;
    return new McpStdioTransport({
      command: prepared ? prepared.command : command,
      args: prepared ? prepared.args : server.args,
      cwd: prepared ? '/' : '/tmp',
      env,
      // The largest answer a call may give, with room for JSON escaping and the other content blocks.
      maxLineBytes: maxAnswerBytes(server),
      onExit: () => void prepared?.dispose().catch(() => undefined),
    });
  }
}

/** The most of one HTTP answer read from a server (SEC-10): the same bound as a stdio server's line. */
function maxAnswerBytes(server: McpServerRecord): number {
  return Math.max(1024 * 1024, server.maxOutputBytes * 8);
}

function httpTransport(server: McpServerRecord): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(server.url ?? ''), {
    requestInit: { headers: { ...server.secrets } },
    fetch: cappedResponseFetch(maxAnswerBytes(server), `The MCP server '${server.name}'`),
  });
}

function key(workspaceId: string, serverId: string): string {
  return `${workspaceId}/${serverId}`;
}

/** Everything that decides how a server is started or reached: a change means a new connection. */
function configFingerprint(server: McpServerRecord): string {
  return createHash('sha256')
    .update(JSON.stringify([server.transport, server.command, server.args, server.network, server.readOnlyPaths, server.url, server.secrets]))
    .digest('hex');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
