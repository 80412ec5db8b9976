import { EFFECT_CLASSES, type EffectClass } from '../../core/effect-classes.js';
import { mcpAgentToolName, UNREVIEWED_MCP_TOOL_EFFECTS } from '../../core/mcp/mcp-tool-descriptor.js';
import { scanDisplayText } from '../../core/skills/scan/scan-display-text.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { CreateMcpServerBody, McpServer, McpServerTool, SetMcpToolEffectsBody, UpdateMcpServerBody } from '../../schemas/mcp-server.js';
import {
  deleteMcpServer,
  findMcpServer,
  findMcpServerByName,
  insertMcpServer,
  listMcpServers,
  replaceMcpServer,
  type ListedMcpTool,
  type McpServerRecord,
} from '../../store/repositories/mcp-server-repository.js';
import { isUniqueViolation } from '../../store/unique-violation.js';
import type { AgentService } from '../agents/agent-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { listedToolFingerprint, type McpConnections } from './mcp-connections.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

/** The longest description kept from a server (display text, and what a model reads when the scan allows it). */
const MAX_DESCRIPTION_CHARACTERS = 4_000;

/** One server tool an agent's run can be given: what the surface, the gate and the call need. */
export interface RunnableMcpTool {
  server: McpServerRecord;
  /** The tool's own name on its server. */
  toolName: string;
  agentToolName: string;
  effects: EffectClass[];
  /** What the model reads: the scanned description, or a neutral line when the scan quarantined it. */
  modelDescription: string;
  inputSchema: Record<string, unknown>;
  /** The listing the operator reviewed; a call of a tool listed differently now is refused. */
  reviewedFingerprint: string;
}

/**
 * Operators' MCP servers per workspace (TOOL-2): adding, changing and removing them, listing each
 * server's tools with their descriptions scanned like skills (untrusted display text), and the effect
 * classes the operator assigns per tool — every class until they do, so every call asks.
 */
export class McpServerService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly agents: AgentService,
    readonly connections: McpConnections,
  ) {}

  /** Each server's runnable tools by workspace and server, with the version of the record they were derived from. */
  private readonly derived = new Map<string, { version: string; tools: RunnableMcpTool[] }>();

  async list(workspaceId: string): Promise<McpServer[]> {
    return (await listMcpServers(await this.db(workspaceId))).map(toApiServer);
  }

  async get(workspaceId: string, serverId: string): Promise<McpServer> {
    return toApiServer(await this.record(workspaceId, serverId));
  }

  async create(workspaceId: string, body: CreateMcpServerBody): Promise<McpServer> {
    const db = await this.db(workspaceId);
    await this.checkAgents(workspaceId, body.agents);
    if (body.transport === 'stdio') this.checkReadablePaths(body.readOnlyPaths);
    if (await findMcpServerByName(db, body.name)) throw new ConflictError('name', `an MCP server named '${body.name}' already exists in this workspace`);
    const now = nowIso();
    const record: McpServerRecord = {
      id: newId('mcp'),
      name: body.name,
      transport: body.transport,
      command: body.transport === 'stdio' ? body.command : null,
      args: body.transport === 'stdio' ? body.args : [],
      network: body.transport === 'stdio' ? body.network : null,
      readOnlyPaths: body.transport === 'stdio' ? body.readOnlyPaths : [],
      url: body.transport === 'http' ? body.url : null,
      secrets: body.transport === 'stdio' ? body.env : body.headers,
      agents: [...new Set(body.agents)],
      callTimeoutSeconds: body.callTimeoutSeconds,
      maxOutputBytes: body.maxOutputBytes,
      tools: null,
      toolEffects: {},
      toolsListedAt: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await insertMcpServer(db, record);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('name', `an MCP server named '${body.name}' already exists in this workspace`);
      throw error;
    }
    return toApiServer(record);
  }

  async update(workspaceId: string, serverId: string, change: UpdateMcpServerBody): Promise<McpServer> {
    const current = await this.record(workspaceId, serverId);
    const stdioOnly = ['command', 'args', 'network', 'readOnlyPaths', 'env'] as const;
    const httpOnly = ['url', 'headers'] as const;
    for (const field of current.transport === 'stdio' ? httpOnly : stdioOnly) {
      if (change[field] !== undefined) throw new ValidationError(field, `only ${current.transport === 'stdio' ? 'an http' : 'a stdio'} MCP server has ${field}; '${current.name}' is ${current.transport}`);
    }
    if (change.agents) await this.checkAgents(workspaceId, change.agents);
    if (change.readOnlyPaths) this.checkReadablePaths(change.readOnlyPaths);
    const secretsChange = current.transport === 'stdio' ? change.env : change.headers;
    const secrets = { ...current.secrets };
    for (const [name, value] of Object.entries(secretsChange ?? {})) {
      if (value === null) delete secrets[name];
      else secrets[name] = value;
    }
    const next: McpServerRecord = {
      ...current,
      ...(change.command !== undefined ? { command: change.command } : {}),
      ...(change.args !== undefined ? { args: change.args } : {}),
      ...(change.network !== undefined ? { network: change.network } : {}),
      ...(change.readOnlyPaths !== undefined ? { readOnlyPaths: change.readOnlyPaths } : {}),
      ...(change.url !== undefined ? { url: change.url } : {}),
      ...(change.agents !== undefined ? { agents: [...new Set(change.agents)] } : {}),
      ...(change.callTimeoutSeconds !== undefined ? { callTimeoutSeconds: change.callTimeoutSeconds } : {}),
      ...(change.maxOutputBytes !== undefined ? { maxOutputBytes: change.maxOutputBytes } : {}),
      secrets,
      updatedAt: nowIso(),
    };
    await replaceMcpServer(await this.db(workspaceId), next);
    await this.connections.disconnect(workspaceId, serverId);
    return toApiServer(next);
  }

  async remove(workspaceId: string, serverId: string): Promise<void> {
    await this.record(workspaceId, serverId);
    await deleteMcpServer(await this.db(workspaceId), serverId);
    await this.connections.disconnect(workspaceId, serverId);
  }

  /**
   * Connects to the server and lists its tools now, each description scanned (SEC-12). A tool whose
   * description or schema changed since the last listing loses the classes the operator gave it: the
   * operator judged the old text, not this one. A server that cannot be reached keeps its last
   * listing and records why in `lastError`.
   */
  async listTools(workspaceId: string, serverId: string): Promise<McpServer> {
    const current = await this.record(workspaceId, serverId);
    let next: McpServerRecord;
    try {
      const listed = await this.connections.listTools(workspaceId, current);
      const previous = new Map((current.tools ?? []).map((tool) => [tool.name, listedToolFingerprint(tool)]));
      const tools: ListedMcpTool[] = listed.map((tool) => {
        const description = (tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARACTERS);
        const scan = scanDisplayText(`tool:${tool.name}`, description);
        return {
          name: tool.name,
          description,
          inputSchema: tool.inputSchema as Record<string, unknown>,
          findings: scan.findings.map((finding) => ({ ruleId: finding.ruleId, severity: finding.severity, message: finding.message })),
          verdict: scan.verdict,
        };
      });
      const toolEffects = Object.fromEntries(
        Object.entries(current.toolEffects).filter(([name]) => {
          const tool = tools.find((candidate) => candidate.name === name);
          return tool !== undefined && previous.get(name) === listedToolFingerprint(tool);
        }),
      );
      next = { ...current, tools, toolEffects, toolsListedAt: nowIso(), lastError: null, updatedAt: nowIso() };
    } catch (error) {
      next = { ...current, lastError: error instanceof Error ? error.message : String(error), updatedAt: nowIso() };
    }
    await replaceMcpServer(await this.db(workspaceId), next);
    return toApiServer(next);
  }

  /** The operator's classes for one listed tool; an empty list declares a tool that changes nothing. */
  async setToolEffects(workspaceId: string, serverId: string, toolName: string, body: SetMcpToolEffectsBody): Promise<McpServer> {
    const current = await this.record(workspaceId, serverId);
    if (!(current.tools ?? []).some((tool) => tool.name === toolName)) {
      throw new NotFoundError(`tool of the MCP server '${current.name}'`, toolName, 'toolName');
    }
    const effects = EFFECT_CLASSES.filter((effect) => body.effects.includes(effect));
    const next = { ...current, toolEffects: { ...current.toolEffects, [toolName]: effects }, updatedAt: nowIso() };
    await replaceMcpServer(await this.db(workspaceId), next);
    return toApiServer(next);
  }

  /** Every tool of every server enabled for `agentId`, as its runs are given them (listed servers only). */
  async toolsForAgent(workspaceId: string, agentId: string, pin?: ConfigPin): Promise<RunnableMcpTool[]> {
    const servers = (await listMcpServers(await this.db(workspaceId), pin)).filter((server) => server.agents.includes(agentId));
    return servers.flatMap((server) => this.runnableTools(workspaceId, server));
  }

  /**
   * A server's tools as runs are given them, derived once per version of its record (every change
   * stamps `updatedAt`; the listing and classes are in the version too): a run reads the records,
   * and only a changed server has its tools' descriptions and fingerprints (a hash each) made again.
   */
  private runnableTools(workspaceId: string, server: McpServerRecord): RunnableMcpTool[] {
    const key = `${workspaceId}/${server.id}`;
    const version = JSON.stringify([server.updatedAt, server.toolsListedAt, server.name, server.toolEffects]);
    const kept = this.derived.get(key);
    if (kept?.version === version) return kept.tools;
    const tools: RunnableMcpTool[] = [];
    for (const tool of server.tools ?? []) {
      const agentToolName = mcpAgentToolName(server.name, tool.name);
      if (!agentToolName) continue;
      tools.push({
        server,
        toolName: tool.name,
        agentToolName,
        effects: [...(server.toolEffects[tool.name] ?? UNREVIEWED_MCP_TOOL_EFFECTS)],
        modelDescription: modelDescription(server.name, tool),
        inputSchema: tool.inputSchema,
        reviewedFingerprint: listedToolFingerprint(tool),
      });
    }
    this.derived.set(key, { version, tools });
    return tools;
  }

  private async checkAgents(workspaceId: string, agentIds: readonly string[]): Promise<void> {
    const known = new Set((await this.agents.list(workspaceId)).map((agent) => agent.id));
    const unknown = agentIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ValidationError('agents', `no agent with id ${unknown.map((id) => `'${id}'`).join(', ')} in this workspace`);
  }

  private checkReadablePaths(paths: readonly string[]): void {
    paths.forEach((path, index) => {
      const hidden = this.connections.hiddenPathAt(path);
      if (hidden) throw new ValidationError(`readOnlyPaths.${index}`, `'${path}' would show the server what its sandbox hides ('${hidden}': the Control Center's data or the server user's home)`);
    });
  }

  private async record(workspaceId: string, serverId: string): Promise<McpServerRecord> {
    const found = await findMcpServer(await this.db(workspaceId), serverId);
    if (!found) throw new NotFoundError('MCP server', serverId, 'serverId');
    return found;
  }

  private async db(workspaceId: string) {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}

/**
 * What a model reads about a server's tool. The description is a third party's text: a quarantined
 * one is withheld and replaced by a line that says so; otherwise it goes as the scan read it (hidden
 * characters removed), marked as coming from the server.
 */
function modelDescription(serverName: string, tool: ListedMcpTool): string {
  if (tool.verdict === 'quarantine') {
    const rules = [...new Set(tool.findings.filter((finding) => finding.severity === 'quarantine').map((finding) => finding.ruleId))].join(', ');
    return `The tool '${tool.name}' of the MCP server '${serverName}'. Its own description was withheld: the scan found ${rules}.`;
  }
  const text = tool.description.trim() || `The tool '${tool.name}'.`;
  return `[MCP server ${serverName}] ${stripHidden(text)}`;
}

function stripHidden(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return text.replace(/[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Co}\u0000-\u0008\u000b-\u001f\u007f]/gu, '');
}

/** The API's view of a server: secrets by name only, each listed tool with its classes and scan. */
function toApiServer(record: McpServerRecord): McpServer {
  const tools: McpServerTool[] | null =
    record.tools?.map((tool) => ({
      name: tool.name,
      agentToolName: mcpAgentToolName(record.name, tool.name) ?? '',
      description: tool.description,
      inputSchema: tool.inputSchema,
      effects: [...(record.toolEffects[tool.name] ?? UNREVIEWED_MCP_TOOL_EFFECTS)],
      effectsAssigned: Object.hasOwn(record.toolEffects, tool.name),
      findings: tool.findings,
      verdict: tool.verdict,
    })) ?? null;
  return {
    id: record.id,
    name: record.name,
    transport: record.transport,
    command: record.command,
    args: record.args,
    network: record.network,
    readOnlyPaths: record.readOnlyPaths,
    url: record.url,
    secrets: Object.fromEntries(Object.keys(record.secrets).map((name) => [name, 'set' as const])),
    agents: record.agents,
    callTimeoutSeconds: record.callTimeoutSeconds,
    maxOutputBytes: record.maxOutputBytes,
    tools,
    toolsListedAt: record.toolsListedAt,
    lastError: record.lastError,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
