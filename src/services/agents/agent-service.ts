import type { Kysely, Transaction } from 'kysely';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { Agent, CreateAgentBody, UpdateAgentBody } from '../../schemas/agent.js';
import {
  agentIdByName,
  agentManagerId,
  agentNameById,
  agentNamesStartingWith,
  deleteAgent,
  findAgent,
  findAgentByName,
  insertAgent,
  listAgents,
  updateAgent,
  type AgentRecord,
} from '../../store/repositories/agent-repository.js';
import { unfinishedRunIds } from '../../store/repositories/run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { AuditActor } from '../../schemas/audit.js';
import { insertAuditEntry } from '../../store/repositories/audit-entry-repository.js';
import { agentCreatedAct, agentDeletedAct, agentUpdatedAct } from '../audit/agent-change-summary.js';
import { auditEntryOf, SYSTEM_ACTOR } from '../audit/audit-act.js';
import { AgentDirectory, type AgentDirectoryContent, type PendingDirectoryChange } from './agent-directory.js';
import type { EventBus } from '../event-bus.js';
import type { FileOperations } from '../file-operations.js';
import type { RunService } from '../runs/run-service.js';
import { fieldsWritten, refuseFieldsTheTransportIgnores, type CapabilitiesLookup } from './transport-field-check.js';
import type { WorkspaceHandle, WorkspaceService } from '../workspaces/workspace-service.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

/** Checks an agent's `effort` against its model's own vocabulary (AG-1); returns a problem or null. */
export type EffortValidator = (modelId: string | null, adapterId: string | null, effort: string) => string | null;

type Database = Kysely<WorkspaceSchema>;

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

const ACP_ADAPTER = 'acp';

/**
 * The ACP command after an update (RLY-7): the one the change sets; else the current one while the
 * agent stays on `acp`; dropped when the agent moves to another adapter (it would mean nothing there).
 */
function acpCommandAfter(change: UpdateAgentBody, current: AgentRecord): AgentRecord['acpCommand'] {
  if (change.acpCommand !== undefined) return change.acpCommand;
  const adapterId = change.adapterId !== undefined ? change.adapterId : current.adapterId;
  return adapterId === ACP_ADAPTER ? current.acpCommand : null;
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
    private readonly capabilitiesFor: CapabilitiesLookup,
  ) {}

  async list(workspaceId: string): Promise<Agent[]> {
    const { database } = await this.workspaces.handle(workspaceId);
    const records = await listAgents(database.db);
    const states = await this.runs.deriveStates(database.db, records.map((record) => record.id));
    return records.map((record) => ({ ...record, state: states.get(record.id) ?? 'neverRun' }));
  }

  /** `pin`: a run's preparation reads the record through its configuration pin (see pinnedRead); the state is always read. */
  async get(workspaceId: string, agentId: string, pin?: ConfigPin): Promise<Agent> {
    const { database } = await this.workspaces.handle(workspaceId);
    return this.withState(database.db, await this.findRecord(database.db, agentId, pin));
  }

  /** Looks an agent up by id or by name (the target of @mentions). */
  async findByName(workspaceId: string, name: string): Promise<Agent | null> {
    const { database } = await this.workspaces.handle(workspaceId);
    const record = await findAgentByName(database.db, name);
    return record ? this.withState(database.db, record) : null;
  }

  /**
   * Creates an agent; every field may be omitted, as "New agent" in settings does (a blank agent).
   * `actor` is who did it, for the audit log (TEAM-3); the server's own creations (seeding, a hire
   * the orchestration approval already recorded) are the system's.
   */
  async create(workspaceId: string, input: CreateAgentBody, actor: AuditActor = SYSTEM_ACTOR): Promise<Agent> {
    const handle = await this.workspaces.handle(workspaceId);
    const record = await this.inTransactionWithDirectory(handle, async (trx) => {
      const now = nowIso();
      const name = input.name ?? (await this.nextFreeName(trx));
      const record: AgentRecord = {
        id: newId('ag'),
        workspaceId,
        name,
        title: input.title ?? '',
        persona: input.persona ?? '',
        systemPrompt: input.systemPrompt ?? null,
        skills: normalizeSkills(input.skills ?? []),
        adapterId: input.adapterId ?? null,
        modelId: input.modelId ?? null,
        effort: input.effort ?? null,
        contextSize: input.contextSize ?? null,
        silenceTimeoutMinutes: input.silenceTimeoutMinutes ?? null,
        reportsTo: input.reportsTo ?? null,
        acpCommand: input.acpCommand ?? null,
        createdAt: now,
        updatedAt: now,
      };
      // Entry first (TEAM-3): a refused or failed write rolls it back with the row.
      await insertAuditEntry(trx, auditEntryOf(agentCreatedAct(actor, record, Object.keys(input).filter((field) => input[field as keyof CreateAgentBody] !== undefined))));
      await this.validate(trx, record, null, fieldsWritten(input, null));
      await insertAgent(trx, record);
      return { record, previousName: null };
    });
    const agent = await this.withState(handle.database.db, record);
    this.events.publish(workspaceId, 'agent.created', agent);
    return agent;
  }

  /** Changes an agent; the audit entry names the fields changed, never their values (TEAM-3). */
  async update(workspaceId: string, agentId: string, change: UpdateAgentBody, actor: AuditActor = SYSTEM_ACTOR): Promise<Agent> {
    const handle = await this.workspaces.handle(workspaceId);
    const record = await this.inTransactionWithDirectory(handle, async (trx) => {
      const current = await this.findRecord(trx, agentId);
      const next: AgentRecord = {
        ...current,
        name: change.name ?? current.name,
        title: change.title ?? current.title,
        persona: change.persona ?? current.persona,
        systemPrompt: change.systemPrompt !== undefined ? change.systemPrompt : current.systemPrompt,
        skills: change.skills ? normalizeSkills(change.skills) : current.skills,
        adapterId: change.adapterId !== undefined ? change.adapterId : current.adapterId,
        modelId: change.modelId !== undefined ? change.modelId : current.modelId,
        effort: change.effort !== undefined ? change.effort : current.effort,
        contextSize: change.contextSize !== undefined ? change.contextSize : current.contextSize,
        silenceTimeoutMinutes: change.silenceTimeoutMinutes !== undefined ? change.silenceTimeoutMinutes : current.silenceTimeoutMinutes,
        reportsTo: change.reportsTo !== undefined ? change.reportsTo : current.reportsTo,
        acpCommand: acpCommandAfter(change, current),
        updatedAt: nowIso(),
      };
      await insertAuditEntry(trx, auditEntryOf(agentUpdatedAct(actor, current, next)));
      await this.validate(trx, next, current.id, fieldsWritten(change, current));
      await updateAgent(trx, next);
      return { record: next, previousName: current.name };
    });
    const agent = await this.withState(handle.database.db, record);
    this.events.publish(workspaceId, 'agent.updated', agent);
    return agent;
  }

  /** Deletes row and directory together; refused while the agent has a run in progress. */
  async delete(workspaceId: string, agentId: string, actor: AuditActor = SYSTEM_ACTOR): Promise<void> {
    const handle = await this.workspaces.handle(workspaceId);
    const directory = new AgentDirectory(this.files, handle.dir);
    // A holder, not a `let`: TypeScript does not see the assignment inside the callback.
    const staged: { change: PendingDirectoryChange | null } = { change: null };
    try {
      await handle.database.db.transaction().execute(async (trx) => {
        const current = await this.findRecord(trx, agentId);
        await insertAuditEntry(trx, auditEntryOf(agentDeletedAct(actor, current)));
        const [active] = await unfinishedRunIds(trx, agentId);
        if (active) throw new ConflictError('agentId', `agent '${current.name}' has a run in progress (${active}); stop it first`);
        await deleteAgent(trx, agentId);
        staged.change = await directory.remove(current.name);
      });
    } catch (error) {
      await staged.change?.rollback();
      throw error;
    }
    await staged.change?.commit();
    this.events.publish(workspaceId, 'agent.deleted', { id: agentId });
  }

  /** Rewrites an agent's directory from its row (re-seeding, WS-2). */
  async rewriteDirectory(workspaceId: string, agentId: string): Promise<void> {
    const handle = await this.workspaces.handle(workspaceId);
    await this.inTransactionWithDirectory(handle, async (trx) => {
      const record = await this.findRecord(trx, agentId);
      return { record, previousName: record.name };
    });
  }

  /**
   * Runs `work` in a transaction, then writes the agent's directory before the commit. A failure in
   * the directory rolls the row back; a failed commit rolls the directory back.
   */
  private async inTransactionWithDirectory(
    handle: WorkspaceHandle,
    work: (trx: Transaction<WorkspaceSchema>) => Promise<{ record: AgentRecord; previousName: string | null }>,
  ): Promise<AgentRecord> {
    const directory = new AgentDirectory(this.files, handle.dir);
    // A holder, not a `let`: TypeScript does not see the assignment inside the callback.
    const staged: { change: PendingDirectoryChange | null } = { change: null };
    let result: AgentRecord;
    try {
      result = await handle.database.db.transaction().execute(async (trx) => {
        const { record, previousName } = await work(trx);
        staged.change = await directory.write(await this.directoryContent(trx, record), previousName);
        return record;
      });
    } catch (error) {
      await staged.change?.rollback();
      throw error;
    }
    await staged.change?.commit();
    return result;
  }

  private async directoryContent(db: Database, record: AgentRecord): Promise<AgentDirectoryContent> {
    const managerName = record.reportsTo ? await agentNameById(db, record.reportsTo) : null;
    // The files show what the API shows, minus bookkeeping, with the manager by name.
    const { id: _id, workspaceId: _workspaceId, createdAt: _createdAt, updatedAt: _updatedAt, reportsTo: _reportsTo, ...content } = record;
    return { ...content, reportsToName: managerName };
  }

  /**
   * The rules that need the database: unique name, manager in this workspace, no reporting cycle;
   * and the fields this write sets, which the agent's transport must honour (TRUTH-1), effort in the
   * vocabulary of the model the transport will run.
   */
  private async validate(db: Database, record: AgentRecord, existingId: string | null, written: ReadonlySet<string>): Promise<void> {
    const clash = await agentIdByName(db, record.name);
    if (clash && clash !== existingId) throw new ConflictError('name', `an agent named '${record.name}' already exists in this workspace`);
    if (record.reportsTo) {
      if (record.reportsTo === record.id) throw new ValidationError('reportsTo', 'an agent cannot report to itself');
      let cursor: string | null = record.reportsTo;
      const visited = new Set<string>();
      while (cursor) {
        if (cursor === record.id) throw new ValidationError('reportsTo', 'this manager would create a reporting cycle');
        if (visited.has(cursor)) break;
        visited.add(cursor);
        const next: string | null | undefined = await agentManagerId(db, cursor);
        if (next === undefined) {
          if (cursor === record.reportsTo) throw new NotFoundError('agent', record.reportsTo, 'reportsTo');
          break;
        }
        cursor = next;
      }
    }
    if (record.acpCommand && record.adapterId !== ACP_ADAPTER) {
      throw new ValidationError('acpCommand', `only an agent whose adapterId is "${ACP_ADAPTER}" runs an ACP command`);
    }
    const capabilities = this.capabilitiesFor(record);
    refuseFieldsTheTransportIgnores(capabilities, record, written);
    if (record.effort !== null && (written.has('effort') || written.has('modelId'))) {
      const problem = this.validateEffort(record.modelId ?? capabilities.honours.effortDefaultModelId ?? null, record.adapterId, record.effort);
      if (problem) throw new ValidationError('effort', problem);
    }
  }

  private async nextFreeName(db: Database): Promise<string> {
    const taken = new Set(await agentNamesStartingWith(db, 'new-agent'));
    for (let index = 1; ; index += 1) {
      const candidate = index === 1 ? 'new-agent' : `new-agent-${index}`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  private async findRecord(db: Database, agentId: string, pin?: ConfigPin): Promise<AgentRecord> {
    const record = await findAgent(db, agentId, pin);
    if (!record) throw new NotFoundError('agent', agentId, 'agentId');
    return record;
  }

  private async withState(db: Kysely<WorkspaceSchema>, record: AgentRecord): Promise<Agent> {
    const states = await this.runs.deriveStates(db, [record.id]);
    return { ...record, state: states.get(record.id) ?? 'neverRun' };
  }
}
