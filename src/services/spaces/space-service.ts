import type { Kysely } from 'kysely';
import { UNTITLED_CHAT_SPACE } from '../../core/chat-space-name.js';
import { titleFromMessage, UNTITLED_CONVERSATION } from '../../core/conversation-title.js';
import { DEFAULT_AUTONOMY, type Mode } from '../../core/modes.js';
import { pickerToSpaceMode, spaceModeToPicker } from '../../core/picker.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type {
  BranchConversationBody,
  Conversation,
  CreateConversationBody,
  CreateSpaceBody,
  Space,
  UpdateConversationBody,
  UpdateSpaceBody,
} from '../../schemas/space.js';
import { agentExists } from '../../store/repositories/agent-repository.js';
import {
  findConversation,
  findConversationWithSpace,
  insertConversation,
  listConversations,
  setConversationArchived,
  setConversationGoal,
  setConversationTitle,
  setTitleIfUntitled,
  type ConversationRecord,
} from '../../store/repositories/conversation-repository.js';
import { findSpace, insertSpace, listSpaces, renameSpaceIfNamed, updateSpace } from '../../store/repositories/space-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus } from '../event-bus.js';
import { assertRepositoryPath } from '../workspaces/repository-path-check.js';
import type { CapabilitiesLookup } from '../agents/transport-field-check.js';
import { refuseAutonomyTheTransportIgnores } from './autonomy-honoured-check.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { modeChangeNote, type SpaceChange } from './mode-change-note.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

/** Writes a line into a conversation's timeline (the message service, given late: it is built after this one). */
export type ConversationNoteWriter = (workspaceId: string, note: { conversationId: string; operatorId: string | null; content: string }) => Promise<unknown>;

/**
 * Spaces and their conversations (MODE-1..6). The mode lives on the space only; conversations and
 * branches read it from there, so a change reaches all of them from the next turn on.
 */
export class SpaceService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
    /** What the default agent's transport honours (TRUTH-1); absent, autonomy is not checked against it. */
    private readonly capabilitiesFor?: CapabilitiesLookup,
    /** Where a change of mode or dial is said (absent: the change is only published as an event). */
    private readonly writeNote?: ConversationNoteWriter,
  ) {}

  async list(workspaceId: string): Promise<Space[]> {
    const db = await this.db(workspaceId);
    return listSpaces(db, workspaceId);
  }

  /** `pin`: a run's preparation reads through its configuration pin (see pinnedRead). */
  async get(workspaceId: string, spaceId: string, pin?: ConfigPin): Promise<Space> {
    return this.findSpaceOrThrow(await this.db(workspaceId), workspaceId, spaceId, pin);
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
    if (input.autonomy !== undefined && this.capabilitiesFor) {
      await refuseAutonomyTheTransportIgnores(db, this.capabilitiesFor, { field: 'autonomy', autonomy: input.autonomy, defaultAgentId: input.defaultAgentId ?? null });
    }
    const now = nowIso();
    const mode: Mode = kind === 'pullRequest' ? 'review' : (input.mode ?? 'chat');
    const autonomy = input.autonomy ?? DEFAULT_AUTONOMY;
    const space: Space = {
      id: newId('sp'),
      workspaceId,
      name: input.name,
      kind,
      mode,
      autonomy,
      picker: spaceModeToPicker(mode, autonomy),
      defaultAgentId: input.defaultAgentId ?? null,
      repoPath: input.repoPath ?? null,
      createdAt: now,
      updatedAt: now,
      archivedAt: null,
    };
    await insertSpace(db, space);
    this.events.publish(workspaceId, 'space.created', space);
    return space;
  }

  /**
   * Persists mode/autonomy changes (MODE-4) and emits `space.modeChanged` so open composers follow.
   * A change of mode or dial is also said in every conversation of the space, with why and by whom
   * (`by`; without it, a picker value reads as picked, anything else as a settings change): picking
   * Ask moves the dial too, and nobody should find that out later.
   */
  async update(workspaceId: string, spaceId: string, change: UpdateSpaceBody, by?: SpaceChange): Promise<Space> {
    const db = await this.db(workspaceId);
    const current = await this.findSpaceOrThrow(db, workspaceId, spaceId);
    if (change.picker !== undefined && (change.mode !== undefined || change.autonomy !== undefined)) {
      throw new ValidationError('picker', 'send either picker or mode/autonomy, not both');
    }
    let mode = change.mode ?? current.mode;
    let autonomy = change.autonomy ?? current.autonomy;
    if (change.picker !== undefined) ({ mode, autonomy } = pickerToSpaceMode(change.picker, autonomy));
    const modeChanges = mode !== current.mode;
    if (modeChanges && current.kind === 'pullRequest') {
      throw new ConflictError('mode', 'a pull-request space stays in review mode (MODE-6)');
    }
    if (modeChanges && mode === 'review') {
      throw new ValidationError('mode', 'review is not user-selectable (MODE-6)');
    }
    if (change.defaultAgentId) await this.assertAgent(db, change.defaultAgentId, 'defaultAgentId');
    if (autonomy !== current.autonomy && this.capabilitiesFor) {
      const defaultAgentId = change.defaultAgentId !== undefined ? change.defaultAgentId : current.defaultAgentId;
      await refuseAutonomyTheTransportIgnores(db, this.capabilitiesFor, { field: change.picker !== undefined ? 'picker' : 'autonomy', autonomy, defaultAgentId });
    }
    const space: Space = {
      ...current,
      name: change.name ?? current.name,
      mode,
      autonomy,
      picker: spaceModeToPicker(mode, autonomy),
      defaultAgentId: change.defaultAgentId !== undefined ? change.defaultAgentId : current.defaultAgentId,
      updatedAt: nowIso(),
      // Archiving again keeps the first date (when it left the sidebar).
      archivedAt: change.archived === undefined ? current.archivedAt : change.archived ? (current.archivedAt ?? nowIso()) : null,
    };
    await updateSpace(db, space);
    if (modeChanges || autonomy !== current.autonomy) {
      this.events.publish(workspaceId, 'space.modeChanged', {
        spaceId,
        mode: space.mode,
        autonomy: space.autonomy,
        picker: space.picker,
        previous: { mode: current.mode, autonomy: current.autonomy },
      });
    }
    this.events.publish(workspaceId, 'space.updated', space);
    const cause = by?.cause ?? (change.picker !== undefined ? { kind: 'picker' as const, picker: change.picker } : { kind: 'spaceSettings' as const });
    await this.sayModeChange(workspaceId, db, current, space, { cause, operatorId: by?.operatorId ?? null });
    return space;
  }

  private async sayModeChange(workspaceId: string, db: Kysely<WorkspaceSchema>, previous: Space, next: Space, change: SpaceChange): Promise<void> {
    const content = this.writeNote ? modeChangeNote(previous, next, change.cause) : null;
    if (!content) return;
    for (const conversation of await listConversations(db, next.id)) {
      await this.writeNote!(workspaceId, { conversationId: conversation.id, operatorId: change.operatorId, content });
    }
  }

  async listConversations(workspaceId: string, spaceId: string): Promise<Conversation[]> {
    const db = await this.db(workspaceId);
    const space = await this.findSpaceOrThrow(db, workspaceId, spaceId);
    return (await listConversations(db, spaceId)).map((record) => ({ ...record, mode: space.mode }));
  }

  async createConversation(workspaceId: string, spaceId: string, input: CreateConversationBody): Promise<Conversation> {
    const db = await this.db(workspaceId);
    const space = await this.findSpaceOrThrow(db, workspaceId, spaceId);
    const now = nowIso();
    const record: ConversationRecord = {
      id: newId('cv'),
      spaceId,
      parentConversationId: null,
      branchedFromMessageId: null,
      title: input.title ?? UNTITLED_CONVERSATION,
      goal: null,
      createdAt: now,
      updatedAt: now,
      archivedAt: null,
    };
    return this.insertConversation(db, workspaceId, record, space.mode);
  }

  /** A branch is a conversation in the same space; it inherits the space's mode like any other. */
  async branchConversation(workspaceId: string, conversationId: string, input: BranchConversationBody): Promise<Conversation> {
    const db = await this.db(workspaceId);
    const parent = await this.findConversationOrThrow(db, conversationId);
    const space = await this.findSpaceOrThrow(db, workspaceId, parent.spaceId);
    const now = nowIso();
    const record: ConversationRecord = {
      id: newId('cv'),
      spaceId: parent.spaceId,
      parentConversationId: parent.id,
      branchedFromMessageId: input.fromMessageId ?? null,
      title: input.title ?? `${parent.title} (branch)`,
      goal: parent.goal,
      createdAt: now,
      updatedAt: now,
      archivedAt: null,
    };
    return this.insertConversation(db, workspaceId, record, space.mode);
  }

  /** Stores a new conversation (or branch) and announces it; it takes the space's mode (MODE-1). */
  private async insertConversation(db: Kysely<WorkspaceSchema>, workspaceId: string, record: ConversationRecord, mode: Mode): Promise<Conversation> {
    await insertConversation(db, record);
    const conversation: Conversation = { ...record, mode };
    this.events.publish(workspaceId, 'conversation.created', conversation);
    return conversation;
  }

  async getConversation(workspaceId: string, conversationId: string): Promise<Conversation> {
    return (await this.getConversationInSpace(workspaceId, conversationId)).conversation;
  }

  /** A conversation and the space it is in, read once (posting a message needs both). */
  async getConversationInSpace(workspaceId: string, conversationId: string): Promise<{ conversation: Conversation; space: Space }> {
    const db = await this.db(workspaceId);
    const found = await findConversationWithSpace(db, workspaceId, conversationId);
    if (!found) throw new NotFoundError('conversation', conversationId, 'conversationId');
    const { record, space } = found;
    if (!space) throw new NotFoundError('space', record.spaceId, 'spaceId');
    return { conversation: { ...record, mode: space.mode }, space };
  }

  async setConversationGoal(workspaceId: string, conversationId: string, goal: string | null): Promise<Conversation> {
    const db = await this.db(workspaceId);
    await this.findConversationOrThrow(db, conversationId);
    await setConversationGoal(db, conversationId, goal, nowIso());
    const conversation = await this.getConversation(workspaceId, conversationId);
    this.events.publish(workspaceId, 'conversation.updated', conversation);
    return conversation;
  }

  /**
   * The operator renames a conversation (UI) — any time, replacing an auto-title too — or archives it
   * (hidden behind "Show archived", never deleted) or brings it back.
   */
  async updateConversation(workspaceId: string, conversationId: string, change: UpdateConversationBody): Promise<Conversation> {
    const db = await this.db(workspaceId);
    const record = await this.findConversationOrThrow(db, conversationId);
    const now = nowIso();
    if (change.title !== undefined) {
      await setConversationTitle(db, conversationId, change.title, now);
      await this.nameChatSpaceAfter(db, workspaceId, record, change.title);
    }
    if (change.archived !== undefined && change.archived !== (record.archivedAt !== null)) {
      await setConversationArchived(db, conversationId, change.archived ? now : null, now);
    }
    const conversation = await this.getConversation(workspaceId, conversationId);
    this.events.publish(workspaceId, 'conversation.updated', conversation);
    return conversation;
  }

  /**
   * A space "New chat" opened is still called {@link UNTITLED_CHAT_SPACE}: it takes the title its first
   * conversation just got. A space someone named, and every later conversation or branch, changes nothing.
   */
  private async nameChatSpaceAfter(db: Kysely<WorkspaceSchema>, workspaceId: string, record: ConversationRecord, title: string): Promise<void> {
    if (record.parentConversationId !== null) return;
    if (!(await renameSpaceIfNamed(db, record.spaceId, UNTITLED_CHAT_SPACE, title, nowIso()))) return;
    const space = await findSpace(db, workspaceId, record.spaceId);
    if (space) this.events.publish(workspaceId, 'space.updated', space);
  }

  /**
   * Auto-title (UI): a conversation still called {@link UNTITLED_CONVERSATION} takes its title from
   * `text` (deterministic, no model call). A title set by anyone first is never replaced.
   */
  async titleFromFirstMessage(workspaceId: string, conversationId: string, text: string): Promise<Conversation | null> {
    const title = titleFromMessage(text);
    if (!title) return null;
    const db = await this.db(workspaceId);
    if (!(await setTitleIfUntitled(db, conversationId, UNTITLED_CONVERSATION, title, nowIso()))) return null;
    const record = await findConversation(db, conversationId);
    if (record) await this.nameChatSpaceAfter(db, workspaceId, record, title);
    const conversation = await this.getConversation(workspaceId, conversationId);
    this.events.publish(workspaceId, 'conversation.updated', conversation);
    return conversation;
  }

  /** The space row if it exists in this workspace's file, else null (MODE-2 treats that as chat). */
  async findSpace(workspaceId: string, spaceId: string): Promise<Space | null> {
    const db = await this.db(workspaceId);
    return findSpace(db, workspaceId, spaceId);
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }

  private async findSpaceOrThrow(db: Kysely<WorkspaceSchema>, workspaceId: string, spaceId: string, pin?: ConfigPin): Promise<Space> {
    const space = await findSpace(db, workspaceId, spaceId, pin);
    if (!space) throw new NotFoundError('space', spaceId, 'spaceId');
    return space;
  }

  private async findConversationOrThrow(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<ConversationRecord> {
    const record = await findConversation(db, conversationId);
    if (!record) throw new NotFoundError('conversation', conversationId, 'conversationId');
    return record;
  }

  private async assertAgent(db: Kysely<WorkspaceSchema>, agentId: string, field: string): Promise<void> {
    if (!(await agentExists(db, agentId))) throw new NotFoundError('agent', agentId, field);
  }
}
