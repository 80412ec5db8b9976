import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { EffectClass } from '../../core/effect-classes.js';
import { EffectClassSchema } from '../../schemas/policy.js';
import { McpToolFinding } from '../../schemas/mcp-server.js';
import type { McpServerTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn, jsonColumn } from './column-parsers.js';
import { pinnedRead, type ConfigPin } from '../pinned-config-reads.js';

/** A tool as the server listed it, with the scan of its description (TOOL-2). */
export interface ListedMcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  findings: McpToolFinding[];
  verdict: 'pass' | 'warn' | 'quarantine';
}

/** An operator's MCP server as stored: secrets included (never serialized by the API). */
export interface McpServerRecord {
  id: string;
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  network: 'none' | 'host' | null;
  readOnlyPaths: string[];
  url: string | null;
  /** Environment variables (stdio) or headers (http). */
  secrets: Record<string, string>;
  agents: string[];
  callTimeoutSeconds: number;
  maxOutputBytes: number;
  tools: ListedMcpTool[] | null;
  toolEffects: Record<string, EffectClass[]>;
  toolsListedAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

const TABLE = 'mcp_servers';
const strings = z.array(z.string());
const parseArgs = jsonColumn(TABLE, 'args', strings);
const parsePaths = jsonColumn(TABLE, 'read_only_paths', strings);
const parseAgents = jsonColumn(TABLE, 'agents', strings);
const parseSecrets = jsonColumn(TABLE, 'secrets', z.record(z.string(), z.string()));
const parseTools = jsonColumn(
  TABLE,
  'tools',
  z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()), findings: z.array(McpToolFinding), verdict: z.enum(['pass', 'warn', 'quarantine']) })),
);
const parseToolEffects = jsonColumn(TABLE, 'tool_effects', z.record(z.string(), z.array(EffectClassSchema)));
const parseTransport = enumColumn(TABLE, 'transport', ['stdio', 'http'] as const);
const parseNetwork = enumColumn(TABLE, 'network', ['none', 'host'] as const);

export function toMcpServerRecord(row: Selectable<McpServerTable>): McpServerRecord {
  return {
    id: row.id,
    name: row.name,
    transport: parseTransport(row.transport, row.id),
    command: row.command,
    args: parseArgs(row.args, row.id),
    network: row.network === null ? null : parseNetwork(row.network, row.id),
    readOnlyPaths: parsePaths(row.read_only_paths, row.id),
    url: row.url,
    secrets: parseSecrets(row.secrets, row.id),
    agents: parseAgents(row.agents, row.id),
    callTimeoutSeconds: Number(row.call_timeout_seconds),
    maxOutputBytes: Number(row.max_output_bytes),
    tools: row.tools === null ? null : parseTools(row.tools, row.id),
    toolEffects: parseToolEffects(row.tool_effects, row.id),
    toolsListedAt: row.tools_listed_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRow(record: McpServerRecord): McpServerTable {
  return {
    id: record.id,
    name: record.name,
    transport: record.transport,
    command: record.command,
    args: JSON.stringify(record.args),
    network: record.network,
    read_only_paths: JSON.stringify(record.readOnlyPaths),
    url: record.url,
    secrets: JSON.stringify(record.secrets),
    agents: JSON.stringify(record.agents),
    call_timeout_seconds: record.callTimeoutSeconds,
    max_output_bytes: record.maxOutputBytes,
    tools: record.tools === null ? null : JSON.stringify(record.tools),
    tool_effects: JSON.stringify(record.toolEffects),
    tools_listed_at: record.toolsListedAt,
    last_error: record.lastError,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** `pin`: kept across runs while the configuration's version holds (see pinnedRead). */
export async function listMcpServers(db: Kysely<WorkspaceSchema>, pin?: ConfigPin): Promise<McpServerRecord[]> {
  return pinnedRead(pin, db, 'mcp-servers', async () => (await db.selectFrom('mcp_servers').selectAll().orderBy('name').execute()).map(toMcpServerRecord));
}

export async function findMcpServer(db: Kysely<WorkspaceSchema>, id: string): Promise<McpServerRecord | null> {
  const row = await db.selectFrom('mcp_servers').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toMcpServerRecord(row) : null;
}

export async function findMcpServerByName(db: Kysely<WorkspaceSchema>, name: string): Promise<McpServerRecord | null> {
  const row = await db.selectFrom('mcp_servers').selectAll().where('name', '=', name).executeTakeFirst();
  return row ? toMcpServerRecord(row) : null;
}

export async function insertMcpServer(db: Kysely<WorkspaceSchema>, record: McpServerRecord): Promise<void> {
  await db.insertInto('mcp_servers').values(toRow(record)).execute();
}

export async function replaceMcpServer(db: Kysely<WorkspaceSchema>, record: McpServerRecord): Promise<void> {
  const { id: _id, ...values } = toRow(record);
  await db.updateTable('mcp_servers').set(values).where('id', '=', record.id).execute();
}

export async function deleteMcpServer(db: Kysely<WorkspaceSchema>, id: string): Promise<void> {
  await db.deleteFrom('mcp_servers').where('id', '=', id).execute();
}
