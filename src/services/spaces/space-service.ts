import type { Kysely, Selectable } from 'kysely';
import { DEFAULT_AUTONOMY, type AutonomyLevel, type Mode } from '../../core/modes.js';
import { pickerToSpaceMode, spaceModeToPicker } from '../../core/picker.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type {
  BranchConversationBody,
  Conversation,
  CreateConversationBody,
  CreateSpaceBody,
  Space,
  SpaceKind,
  UpdateSpaceBody,
} from '../../schemas/space.js';
import type { ConversationTable, SpaceTable, WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus } from '../event-bus.js';
import { assertRepositoryPath } from '../workspaces/repository-path-check.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

function toSpace(workspaceId: string, row: Selectable<SpaceTable>): Space {
  const mode = row.mode as Mode;
  const autonomy = row.autonomy as AutonomyLevel;
  return {
    id: row.id,
    workspaceId,
    name: row.name,
    kind: row.kind as SpaceKind,
    mode,
    autonomy,
    picker: spaceModeToPicker(mode, autonomy),
    defaultAgentId: row.default_agent_id,
    repoPath: row.repo_path,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toConversation(row: Selectable<ConversationTable>, mode: Mode): Conversation {
  return {
    id: row.id,
    spaceId: row.space_id,
    parentConversationId: row.parent_conversation_id,
    branchedFromMessageId: row.branched_from_message_id,
    title: row.title,
    goal: row.goal,
    mode,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Spaces and their conversations (MODE-1..6). The mode lives on the space only; conversations and
 * branches read it from there, so a change reaches all of them from the next turn on.
 */
export class SpaceService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
  ) {}

  async list(workspaceId: string): Promise<Space[]> {
    const db = await this.db(workspaceId);
    const rows = await db.selectFrom('spaces').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => toSpace(workspaceId, row));
  }

  async get(workspaceId: string, spaceId: string): Promise<Space> {
    return toSpace(workspaceId, await this.findRow(await this.db(workspaceId), spaceId));
  }

  /**
   * A PR space is created in review mode; nobody else may ask for review (MODE-6) except a pipeline
   * step (`openedByPipeline`, MODE-5/MODE-6: `messaging.createSpace` defaults to review).
   */
  async create(workspaceId: string, input: CreateSpaceBody, options: { openedByPipeline?: boolean } = {}): Promise<Space> {
    const db = await this.db(workspaceId);
    const kind = input.kind ?? 'room';
    if (kind === 'pullRequest' && input.mode !== undefined && input.mode !== 'review') {
      throw new ValidationError('mode', 'a pull-request space is always created in review mode (MODE-6)');
    }
    if (kind !== 'pullRequest' && input.mode === 'review' && options.openedByPipeline !== true) {
      throw new ValidationError('mode', 'review is not user-selectable: only pull-request spaces and pipeline steps open review spaces (MODE-6)');
    }
    if (input.defaultAgentId) await this.assertAgent(db, input.defaultAgentId, 'defaultAgentId');
    if (input.repoPath) await assertRepositoryPath(input.repoPath);
    const now = nowIso();
    const row: SpaceTable = {
      id: newId('sp'),
      name: input.name,
      kind,
      mode: kind === 'pullRequest' ? 'review' : (input.mode ?? 'chat'),
      autonomy: input.autonomy ?? DEFAULT_AUTONOMY,
      default_agent_id: input.defaultAgentId ?? null,
      repo_path: input.repoPath ?? null,
      created_at: now,
      updated_at: now,
    };
    await db.insertInto('spaces').values(row).execute();
    const space = toSpace(workspaceId, row);
    this.events.publish(workspaceId, 'space.created', space);
    return space;
  }

  /** Persists mode/autonomy changes (MODE-4) and emits `space.modeChanged` so open composers follow. */
  async update(workspaceId: string, spaceId: string, change: UpdateSpaceBody): Promise<Space> {
    const db = await this.db(workspaceId);
    const current = await this.findRow(db, spaceId);
    if (change.picker !== undefined && (change.mode !== undefined || change.autonomy !== undefined)) {
      throw new ValidationError('picker', 'send either picker or mode/autonomy, not both');
    }
    let mode = (change.mode ?? current.mode) as Mode;
    let autonomy = (change.autonomy ?? current.autonomy) as AutonomyLevel;
    if (change.picker !== undefined) ({ mode, autonomy } = pickerToSpaceMode(change.picker, autonomy));
    const modeChanges = mode !== current.mode;
    if (modeChanges && current.kind === 'pullRequest') {
      throw new ConflictError('mode', 'a pull-request space stays in review mode (MODE-6)');
    }
    if (modeChanges && mode === 'review') {
      throw new ValidationError('mode', 'review is not user-selectable (MODE-6)');
    }
    if (change.defaultAgentId) await this.assertAgent(db, change.defaultAgentId, 'defaultAgentId');
    const next: Selectable<SpaceTable> = {
      ...current,
      name: change.name ?? current.name,
      mode,
      autonomy,
      default_agent_id: change.defaultAgentId !== undefined ? change.defaultAgentId : current.default_agent_id,
      updated_at: nowIso(),
    };
    await db
      .updateTable('spaces')
      .set({ name: next.name, mode: next.mode, autonomy: next.autonomy, default_agent_id: next.default_agent_id, updated_at: next.updated_at })
      .where('id', '=', spaceId)
      .execute();
    const space = toSpace(workspaceId, next);
    if (modeChanges || autonomy !== current.autonomy) {
      this.events.publish(workspaceId, 'space.modeChanged', {
        spaceId,
        mode: space.mode,
        autonomy: space.autonomy,
        picker: space.picker,
        previous: { mode: current.mode as Mode, autonomy: current.autonomy as AutonomyLevel },
      });
    }
    this.events.publish(workspaceId, 'space.updated', space);
    return space;
  }

  async listConversations(workspaceId: string, spaceId: string): Promise<Conversation[]> {
    const db = await this.db(workspaceId);
    const space = await this.findRow(db, spaceId);
    const rows = await db.selectFrom('conversations').selectAll().where('space_id', '=', spaceId).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => toConversation(row, space.mode as Mode));
  }

  async createConversation(workspaceId: string, spaceId: string, input: CreateConversationBody): Promise<Conversation> {
    const db = await this.db(workspaceId);
    const space = await this.findRow(db, spaceId);
    const now = nowIso();
    const row: ConversationTable = {
      id: newId('cv'),
      space_id: spaceId,
      parent_conversation_id: null,
      branched_from_message_id: null,
      title: input.title ?? 'New conversation',
      goal: null,
      created_at: now,
      updated_at: now,
    };
    return this.insertConversation(db, workspaceId, row, space.mode as Mode);
  }

  /** A branch is a conversation in the same space; it inherits the space's mode like any other. */
  async branchConversation(workspaceId: string, conversationId: string, input: BranchConversationBody): Promise<Conversation> {
    const db = await this.db(workspaceId);
    const parent = await this.findConversationRow(db, conversationId);
    const space = await this.findRow(db, parent.space_id);
    const now = nowIso();
    const row: ConversationTable = {
      id: newId('cv'),
      space_id: parent.space_id,
      parent_conversation_id: parent.id,
      branched_from_message_id: input.fromMessageId ?? null,
      title: input.title ?? `${parent.title} (branch)`,
      goal: parent.goal,
      created_at: now,
      updated_at: now,
    };
    return this.insertConversation(db, workspaceId, row, space.mode as Mode);
  }

  /** Stores a new conversation (or branch) and announces it; it takes the space's mode (MODE-1). */
  private async insertConversation(db: Kysely<WorkspaceSchema>, workspaceId: string, row: ConversationTable, mode: Mode): Promise<Conversation> {
    await db.insertInto('conversations').values(row).execute();
    const conversation = toConversation(row, mode);
    this.events.publish(workspaceId, 'conversation.created', conversation);
    return conversation;
  }

  async getConversation(workspaceId: string, conversationId: string): Promise<Conversation> {
    const db = await this.db(workspaceId);
    const row = await this.findConversationRow(db, conversationId);
    const space = await this.findRow(db, row.space_id);
    return toConversation(row, space.mode as Mode);
  }

  async setConversationGoal(workspaceId: string, conversationId: string, goal: string | null): Promise<Conversation> {
    const db = await this.db(workspaceId);
    await this.findConversationRow(db, conversationId);
    await db.updateTable('conversations').set({ goal, updated_at: nowIso() }).where('id', '=', conversationId).execute();
    const conversation = await this.getConversation(workspaceId, conversationId);
    this.events.publish(workspaceId, 'conversation.updated', conversation);
    return conversation;
  }

  /** The space row if it exists in this workspace's file, else null (MODE-2 treats that as chat). */
  async findSpace(workspaceId: string, spaceId: string): Promise<Space | null> {
    const db = await this.db(workspaceId);
    const row = await db.selectFrom('spaces').selectAll().where('id', '=', spaceId).executeTakeFirst();
    return row ? toSpace(workspaceId, row) : null;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }

  private async findRow(db: Kysely<WorkspaceSchema>, spaceId: string): Promise<Selectable<SpaceTable>> {
    const row = await db.selectFrom('spaces').selectAll().where('id', '=', spaceId).executeTakeFirst();
    if (!row) throw new NotFoundError('space', spaceId, 'spaceId');
    return row;
  }

  private async findConversationRow(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<Selectable<ConversationTable>> {
    const row = await db.selectFrom('conversations').selectAll().where('id', '=', conversationId).executeTakeFirst();
    if (!row) throw new NotFoundError('conversation', conversationId, 'conversationId');
    return row;
  }

  private async assertAgent(db: Kysely<WorkspaceSchema>, agentId: string, field: string): Promise<void> {
    const agent = await db.selectFrom('agents').select('id').where('id', '=', agentId).executeTakeFirst();
    if (!agent) throw new NotFoundError('agent', agentId, field);
  }
}
