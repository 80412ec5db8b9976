import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { parse as parseYaml } from 'yaml';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Agent, CreateAgentBody, UpdateAgentBody } from '../../schemas/agent.js';
import type { AgentTable, WorkspaceSchema } from '../../store/workspace-schema.js';
import { AgentDirectory, skillDirectoryName, type AgentDirectoryContent, type PendingDirectoryChange } from './agent-directory.js';
import type { EventBus } from '../event-bus.js';
import type { FileOperations } from '../file-operations.js';
import type { RunService } from '../runs/run-service.js';
import type { WorkspaceHandle, WorkspaceService } from '../workspaces/workspace-service.js';

/** Checks an agent's `effort` against its model's own vocabulary (AG-1); returns a problem or null. */
export type EffortValidator = (modelId: string | null, adapterId: string | null, effort: string) => string | null;

type AgentRow = Selectable<AgentTable>;
type Database = Kysely<WorkspaceSchema> | Transaction<WorkspaceSchema>;

/** De-duplicates skill names case-insensitively, keeping the first spelling (SKL-1). */
export function normalizeSkills(skills: readonly string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const skill of skills) {
    const key = skill.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      result.push(skill);
    }
  }
  return result;
}

function toAgent(row: AgentRow, state: Agent['state']): Agent {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    title: row.title,
    persona: row.persona,
    systemPrompt: row.system_prompt,
    skills: JSON.parse(row.skills) as string[],
    adapterId: row.adapter_id,
    modelId: row.model_id,
    effort: row.effort,
    contextSize: row.context_size,
    silenceTimeoutMinutes: row.silence_timeout_minutes,
    reportsTo: row.reports_to,
    state,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Agents (AG-1, AG-2): a row in the workspace database and a directory on disk, always written
 * together. The directory change is staged and swapped in inside the row's transaction; if either
 * half fails, both are undone.
 */
export class AgentService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly runs: RunService,
    private readonly events: EventBus,
    private readonly files: FileOperations,
    private readonly validateEffort: EffortValidator,
  ) {}

  async list(workspaceId: string): Promise<Agent[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    const rows = await database.db.selectFrom('agents').selectAll().orderBy('created_at').orderBy('id').execute();
    const states = await this.runs.deriveStates(database.db, rows.map((row) => row.id));
    return rows.map((row) => toAgent(row, states.get(row.id) ?? 'neverRun'));
  }

  async get(workspaceId: string, agentId: string): Promise<Agent> {
    const { database } = await this.workspaces.handle(workspaceId);
    const row = await this.findRow(database.db, agentId);
    return this.withState(database.db, row);
  }

  /** Looks an agent up by id or by name (the target of @mentions). */
  async findByName(workspaceId: string, name: string): Promise<Agent | null> {
    const { database } = await this.workspaces.handle(workspaceId);
    const row = await database.db.selectFrom('agents').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? this.withState(database.db, row) : null;
  }

  /** Creates an agent; every field may be omitted, as "New agent" in settings does (a blank agent). */
  async create(workspaceId: string, input: CreateAgentBody): Promise<Agent> {
    const handle = await this.workspaces.handle(workspaceId);
    const row = await this.inTransactionWithDirectory(handle, async (trx) => {
      const now = nowIso();
      const name = input.name ?? (await this.nextFreeName(trx));
      const row: AgentRow = {
        id: newId('ag'),
        workspace_id: workspaceId,
        name,
        title: input.title ?? '',
        persona: input.persona ?? '',
        system_prompt: input.systemPrompt ?? null,
        skills: JSON.stringify(normalizeSkills(input.skills ?? [])),
        adapter_id: input.adapterId ?? null,
        model_id: input.modelId ?? null,
        effort: input.effort ?? null,
        context_size: input.contextSize ?? null,
        silence_timeout_minutes: input.silenceTimeoutMinutes ?? null,
        reports_to: input.reportsTo ?? null,
        created_at: now,
        updated_at: now,
      };
      await this.validate(trx, row, null);
      await trx.insertInto('agents').values(row).execute();
      return { row, previousName: null };
    });
    const agent = await this.withState(handle.database.db, row);
    this.events.publish(workspaceId, 'agent.created', agent);
    return agent;
  }

  async update(workspaceId: string, agentId: string, change: UpdateAgentBody): Promise<Agent> {
    const handle = await this.workspaces.handle(workspaceId);
    const row = await this.inTransactionWithDirectory(handle, async (trx) => {
      const current = await this.findRow(trx, agentId);
      const next: AgentRow = {
        ...current,
        name: change.name ?? current.name,
        title: change.title ?? current.title,
        persona: change.persona ?? current.persona,
        system_prompt: change.systemPrompt !== undefined ? change.systemPrompt : current.system_prompt,
        skills: change.skills ? JSON.stringify(normalizeSkills(change.skills)) : current.skills,
        adapter_id: change.adapterId !== undefined ? change.adapterId : current.adapter_id,
        model_id: change.modelId !== undefined ? change.modelId : current.model_id,
        effort: change.effort !== undefined ? change.effort : current.effort,
        context_size: change.contextSize !== undefined ? change.contextSize : current.context_size,
        silence_timeout_minutes:
          change.silenceTimeoutMinutes !== undefined ? change.silenceTimeoutMinutes : current.silence_timeout_minutes,
        reports_to: change.reportsTo !== undefined ? change.reportsTo : current.reports_to,
        updated_at: nowIso(),
      };
      await this.validate(trx, next, current.id);
      const { id: _id, workspace_id: _workspaceId, created_at: _createdAt, ...columns } = next;
      await trx.updateTable('agents').set(columns).where('id', '=', agentId).execute();
      return { row: next, previousName: current.name };
    });
    const agent = await this.withState(handle.database.db, row);
    this.events.publish(workspaceId, 'agent.updated', agent);
    return agent;
  }

  /** Deletes row and directory together; refused while the agent has a run in progress. */
  async delete(workspaceId: string, agentId: string): Promise<void> {
    const handle = await this.workspaces.handle(workspaceId);
    const directory = new AgentDirectory(this.files, handle.dir);
    let pending: PendingDirectoryChange | null = null;
    try {
      await handle.database.db.transaction().execute(async (trx) => {
        const current = await this.findRow(trx, agentId);
        const active = await trx.selectFrom('runs').select('id').where('agent_id', '=', agentId).where('state', 'in', ['queued', 'running']).executeTakeFirst();
        if (active) throw new ConflictError('agentId', `agent '${current.name}' has a run in progress (${active.id}); stop it first`);
        await trx.deleteFrom('agents').where('id', '=', agentId).execute();
        pending = await directory.remove(current.name);
      });
    } catch (error) {
      await (pending as PendingDirectoryChange | null)?.rollback();
      throw error;
    }
    await (pending as PendingDirectoryChange | null)?.commit();
    this.events.publish(workspaceId, 'agent.deleted', { id: agentId });
  }

  /**
   * SKL-1/SKL-2: the agent's skill names with the description from each linked skill's SKILL.md
   * frontmatter (null when the skill is not installed or has no description).
   */
  async skillDescriptions(workspaceId: string, agent: Agent): Promise<Array<{ name: string; description: string | null }>> {
    const handle = await this.workspaces.handle(workspaceId);
    return Promise.all(
      agent.skills.map(async (name) => {
        const text = await readFile(join(handle.dir, 'skills', skillDirectoryName(name), 'SKILL.md'), 'utf8').catch(() => null);
        const frontmatter = text ? /^---\n([\s\S]*?)\n---/.exec(text)?.[1] : undefined;
        let description: string | null = null;
        if (frontmatter) {
          try {
            const parsed = parseYaml(frontmatter) as { description?: unknown } | null;
            description = typeof parsed?.description === 'string' ? parsed.description : null;
          } catch {
            description = null;
          }
        }
        return { name, description };
      }),
    );
  }

  /** Rewrites an agent's directory from its row (re-seeding, WS-2). */
  async rewriteDirectory(workspaceId: string, agentId: string): Promise<void> {
    const handle = await this.workspaces.handle(workspaceId);
    await this.inTransactionWithDirectory(handle, async (trx) => {
      const row = await this.findRow(trx, agentId);
      return { row, previousName: row.name };
    });
  }

  /**
   * Runs `work` in a transaction, then writes the agent's directory before the commit. A failure in
   * the directory rolls the row back; a failed commit rolls the directory back.
   */
  private async inTransactionWithDirectory(
    handle: WorkspaceHandle,
    work: (trx: Transaction<WorkspaceSchema>) => Promise<{ row: AgentRow; previousName: string | null }>,
  ): Promise<AgentRow> {
    const directory = new AgentDirectory(this.files, handle.dir);
    let pending: PendingDirectoryChange | null = null;
    let result: AgentRow;
    try {
      result = await handle.database.db.transaction().execute(async (trx) => {
        const { row, previousName } = await work(trx);
        pending = await directory.write(await this.directoryContent(trx, row), previousName);
        return row;
      });
    } catch (error) {
      await (pending as PendingDirectoryChange | null)?.rollback();
      throw error;
    }
    await (pending as PendingDirectoryChange | null)?.commit();
    return result;
  }

  private async directoryContent(db: Database, row: AgentRow): Promise<AgentDirectoryContent> {
    const manager = row.reports_to
      ? await db.selectFrom('agents').select('name').where('id', '=', row.reports_to).executeTakeFirst()
      : undefined;
    // The files show what the API shows, minus bookkeeping, with the manager by name.
    const { id: _id, workspaceId: _workspaceId, state: _state, createdAt: _createdAt, updatedAt: _updatedAt, reportsTo: _reportsTo, ...content } = toAgent(row, 'neverRun');
    return { ...content, reportsToName: manager?.name ?? null };
  }

  /** The rules that need the database: unique name, manager in this workspace, no reporting cycle, effort. */
  private async validate(db: Database, row: AgentRow, existingId: string | null): Promise<void> {
    const clash = await db.selectFrom('agents').select('id').where('name', '=', row.name).executeTakeFirst();
    if (clash && clash.id !== existingId) throw new ConflictError('name', `an agent named '${row.name}' already exists in this workspace`);
    if (row.reports_to) {
      if (row.reports_to === row.id) throw new ValidationError('reportsTo', 'an agent cannot report to itself');
      let cursor: string | null = row.reports_to;
      const visited = new Set<string>();
      while (cursor) {
        if (cursor === row.id) throw new ValidationError('reportsTo', 'this manager would create a reporting cycle');
        if (visited.has(cursor)) break;
        visited.add(cursor);
        const manager: { reports_to: string | null } | undefined = await db
          .selectFrom('agents')
          .select('reports_to')
          .where('id', '=', cursor)
          .executeTakeFirst();
        if (!manager) {
          if (cursor === row.reports_to) throw new NotFoundError('agent', row.reports_to, 'reportsTo');
          break;
        }
        cursor = manager.reports_to;
      }
    }
    if (row.effort !== null) {
      const problem = this.validateEffort(row.model_id, row.adapter_id, row.effort);
      if (problem) throw new ValidationError('effort', problem);
    }
  }

  private async nextFreeName(db: Database): Promise<string> {
    const rows = await db.selectFrom('agents').select('name').where('name', 'like', 'new-agent%').execute();
    const taken = new Set(rows.map((row) => row.name));
    for (let index = 1; ; index += 1) {
      const candidate = index === 1 ? 'new-agent' : `new-agent-${index}`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  private async findRow(db: Database, agentId: string): Promise<AgentRow> {
    const row = await db.selectFrom('agents').selectAll().where('id', '=', agentId).executeTakeFirst();
    if (!row) throw new NotFoundError('agent', agentId, 'agentId');
    return row;
  }

  private async withState(db: Kysely<WorkspaceSchema>, row: AgentRow): Promise<Agent> {
    const states = await this.runs.deriveStates(db, [row.id]);
    return toAgent(row, states.get(row.id) ?? 'neverRun');
  }
}
