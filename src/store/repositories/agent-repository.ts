import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { Agent } from '../../schemas/agent.js';
import { AgentAcpCommand } from '../../schemas/agent-acp-command.js';
import type { AgentTable, WorkspaceSchema } from '../workspace-schema.js';
import { jsonColumn } from './column-parsers.js';
import { reusableQuery } from '../reusable-query.js';
import { pinnedRead, type ConfigPin } from '../pinned-config-reads.js';

/** An agent as stored (AG-1): everything but its state, which is derived from its runs (AG-3). */
export type AgentRecord = Omit<Agent, 'state'>;

const parseSkills = jsonColumn('agents', 'skills', z.array(z.string()));
// Re-validated on read: a row edited behind the API's back never hands a shell line to the transport.
const parseAcpCommand = jsonColumn('agents', 'acp_command', AgentAcpCommand);

/** The one mapper from an `agents` row (SKL-1: `skills` is a JSON array of names). */
export function toAgentRecord(row: Selectable<AgentTable>): AgentRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    title: row.title,
    persona: row.persona,
    systemPrompt: row.system_prompt,
    skills: parseSkills(row.skills, row.id),
    adapterId: row.adapter_id,
    modelId: row.model_id,
    effort: row.effort,
    contextSize: row.context_size,
    silenceTimeoutMinutes: row.silence_timeout_minutes,
    reportsTo: row.reports_to,
    acpCommand: row.acp_command === null || row.acp_command === undefined ? null : parseAcpCommand(row.acp_command, row.id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toAgentRow(agent: AgentRecord): AgentTable {
  return {
    id: agent.id,
    workspace_id: agent.workspaceId,
    name: agent.name,
    title: agent.title,
    persona: agent.persona,
    system_prompt: agent.systemPrompt,
    skills: JSON.stringify(agent.skills),
    adapter_id: agent.adapterId,
    model_id: agent.modelId,
    effort: agent.effort,
    context_size: agent.contextSize,
    silence_timeout_minutes: agent.silenceTimeoutMinutes,
    reports_to: agent.reportsTo,
    acp_command: agent.acpCommand ? JSON.stringify(agent.acpCommand) : null,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}

/** Every agent, oldest first. */
export async function listAgents(db: Kysely<WorkspaceSchema>): Promise<AgentRecord[]> {
  const rows = await db.selectFrom('agents').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toAgentRecord);
}

/** `pin`: kept across runs while the configuration's version holds (see pinnedRead). */
export async function findAgent(db: Kysely<WorkspaceSchema>, agentId: string, pin?: ConfigPin): Promise<AgentRecord | null> {
  return pinnedRead(pin, db, `agent:${agentId}`, async () => {
    const row = await db.selectFrom('agents').selectAll().where('id', '=', agentId).executeTakeFirst();
    return row ? toAgentRecord(row) : null;
  });
}

/** Read on every message that names (or defaults to) an agent: compiled once per database. */
const agentByName = reusableQuery((db, name: string) => db.selectFrom('agents').selectAll().where('name', '=', name));

export async function findAgentByName(db: Kysely<WorkspaceSchema>, name: string): Promise<AgentRecord | null> {
  const [row] = await agentByName(db, name);
  return row ? toAgentRecord(row) : null;
}

/** Whether an agent with this id exists (a reference check that reads no other column). */
export async function agentExists(db: Kysely<WorkspaceSchema>, agentId: string): Promise<boolean> {
  return (await db.selectFrom('agents').select('id').where('id', '=', agentId).executeTakeFirst()) !== undefined;
}

/** The id of the agent holding `name`, if any (names are unique per workspace, AG-1). */
export async function agentIdByName(db: Kysely<WorkspaceSchema>, name: string): Promise<string | null> {
  const row = await db.selectFrom('agents').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id ?? null;
}

export async function agentNameById(db: Kysely<WorkspaceSchema>, agentId: string): Promise<string | null> {
  const row = await db.selectFrom('agents').select('name').where('id', '=', agentId).executeTakeFirst();
  return row?.name ?? null;
}

/** Names of many agents at once (run trees show who ran each run). */
export async function agentNames(db: Kysely<WorkspaceSchema>, agentIds: readonly string[]): Promise<Map<string, string>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db.selectFrom('agents').select(['id', 'name']).where('id', 'in', [...agentIds]).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** Who an agent reports to: undefined when there is no such agent, null when it reports to nobody. */
export async function agentManagerId(db: Kysely<WorkspaceSchema>, agentId: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('agents').select('reports_to').where('id', '=', agentId).executeTakeFirst();
  return row ? row.reports_to : undefined;
}

/** Names starting with `prefix` (the next free "new-agent-N"). */
export async function agentNamesStartingWith(db: Kysely<WorkspaceSchema>, prefix: string): Promise<string[]> {
  const rows = await db.selectFrom('agents').select('name').where('name', 'like', `${prefix}%`).execute();
  return rows.map((row) => row.name);
}

export async function insertAgent(db: Kysely<WorkspaceSchema>, agent: AgentRecord): Promise<void> {
  await db.insertInto('agents').values(toAgentRow(agent)).execute();
}

/** Writes every column but the id, the workspace and the creation time. */
export async function updateAgent(db: Kysely<WorkspaceSchema>, agent: AgentRecord): Promise<void> {
  const { id, workspace_id: _workspaceId, created_at: _createdAt, ...columns } = toAgentRow(agent);
  await db.updateTable('agents').set(columns).where('id', '=', id).execute();
}

export async function deleteAgent(db: Kysely<WorkspaceSchema>, agentId: string): Promise<void> {
  await db.deleteFrom('agents').where('id', '=', agentId).execute();
}
