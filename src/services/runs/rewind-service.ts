import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { findCheckout } from '../../store/repositories/checkout-repository.js';
import {
  archiveMessagesFrom,
  findRewind,
  findUnarchivedMessage,
  firstTurnCheckpointSince,
  listRewinds,
  markRewindRestored,
  unarchiveMessages,
  insertRewind,
  unfinishedRunOfConversation,
  type ConversationRewind,
} from '../../store/repositories/conversation-rewind-repository.js';
import { checkpointTurn, commitOfRef, restoreCheckpoint, TURN_REF_PREFIX } from '../../git/turn-checkpoint.js';
import { newId, nowIso } from '../../ids.js';
import type { ConversationRunGate } from './conversation-run-gate.js';
import type { MessageService } from './message-service.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';

/**
 * CTX-3: an operator rewinds a conversation to before one of its turns. The checkout returns to its
 * state before that turn, and the messages from that turn on leave the history (the model's and the
 * list's). A built-in turn checkpoints only before its first call that may change the checkout, so the
 * state before turn N is the first checkpoint taken since N began — N's own, else a later turn's (no
 * change came in between) — and with none since, nothing changed the checkout: it stays as it is. Nothing is deleted: the checkout as it was is committed under
 * `refs/cc-turns/<conversation>/rewound-<rewind>`, the messages are marked with the rewind, a system
 * line in the conversation says what happened, and `restore` puts both back.
 */
export class RewindService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly messages: MessageService,
    private readonly checkouts: CheckoutService,
    private readonly gate: ConversationRunGate,
  ) {}

  async list(workspaceId: string, conversationId: string): Promise<ConversationRewind[]> {
    await this.spaces.getConversation(workspaceId, conversationId);
    const { database } = await this.workspaces.handle(workspaceId);
    return listRewinds(database.db, conversationId);
  }

  /**
   * Rewinds to just before `messageId` (a message of this conversation still in its history). The
   * conversation is held from the check that no run is going to the transaction that records the
   * rewind, which checks again for a run another process started: a turn cannot begin on a checkout
   * being reset (409 naming the run, with the checkout put back as it was).
   */
  async rewind(workspaceId: string, conversationId: string, messageId: string, operatorId: string): Promise<ConversationRewind> {
    await this.spaces.getConversation(workspaceId, conversationId);
    const { database } = await this.workspaces.handle(workspaceId);
    const db = database.db;
    const message = await findUnarchivedMessage(db, conversationId, messageId);
    if (!message) throw new NotFoundError('message', messageId, 'messageId');
    const id = newId('rw');
    const release = this.gate.holdForRewind(workspaceId, conversationId, id);
    try {
      await this.refuseUnfinishedRun(db, conversationId);
      return await this.rewindHeld(workspaceId, conversationId, message, id, operatorId);
    } finally {
      release();
    }
  }

  private async rewindHeld(workspaceId: string, conversationId: string, message: { id: string; createdAt: string; content: string }, id: string, operatorId: string): Promise<ConversationRewind> {
    const { database } = await this.workspaces.handle(workspaceId);
    const db = database.db;
    const checkpoint = await firstTurnCheckpointSince(db, conversationId, message.createdAt);
    let archiveRef: string | null = null;
    let putBack: PutBack | null = null;
    const record = await findCheckout(db, conversationId);
    if (checkpoint && record) {
      const runner = await this.checkouts.runner(workspaceId, record);
      // The checkout as it is now is kept first: a rewind never loses work, even uncommitted work.
      archiveRef = `${TURN_REF_PREFIX}${conversationId}/rewound-${id}`;
      await checkpointTurn(runner, conversationId, `rewound-${id}`).catch((error: unknown) => {
        throw new ConflictError('messageId', `the checkout could not be archived, so nothing was rewound: ${error instanceof Error ? error.message : String(error)}`);
      });
      putBack = { runner, ref: archiveRef, record };
      await restoreCheckpoint(runner, checkpoint.commit);
      await this.checkouts.sync(workspaceId, conversationId, record).catch(() => null);
    }
    const rewind: ConversationRewind = {
      id,
      conversationId,
      messageId: message.id,
      checkpointCommit: checkpoint && record ? checkpoint.commit : null,
      archiveRef,
      archivedMessages: 0,
      operatorId,
      createdAt: nowIso(),
      restoredAt: null,
      restoreArchiveRef: null,
    };
    await this.recordUnlessRunStarted(db, workspaceId, conversationId, putBack, async (transaction) => {
      rewind.archivedMessages = await archiveMessagesFrom(transaction, conversationId, message, id);
      await insertRewind(transaction, rewind);
    });
    const archived = rewind.archivedMessages;
    const checkout = rewind.checkpointCommit
      ? ` The checkout is back at ${rewind.checkpointCommit.slice(0, 12)}; what it held is kept as ${archiveRef}.`
      : record
        ? ' No turn since changed the checkout (none took a checkpoint), so it stays as it is; only the history moved.'
        : ' The conversation has no checkout; only the history moved.';
    await this.systemLine(workspaceId, conversationId, `Rewound to before "${excerpt(message.content)}": ${archived} message${archived === 1 ? '' : 's'} archived (rewind ${id}, restorable).${checkout}`);
    return rewind;
  }

  /** Puts a rewind's messages back and returns the checkout to where it was before the rewind (after archiving it as it is now). */
  async restore(workspaceId: string, conversationId: string, rewindId: string): Promise<ConversationRewind> {
    await this.spaces.getConversation(workspaceId, conversationId);
    const { database } = await this.workspaces.handle(workspaceId);
    const db = database.db;
    const rewind = await findRewind(db, rewindId);
    if (!rewind || rewind.conversationId !== conversationId) throw new NotFoundError('rewind', rewindId, 'rewindId');
    if (rewind.restoredAt) throw new ConflictError('rewindId', `rewind ${rewindId} was already restored at ${rewind.restoredAt}`);
    const release = this.gate.holdForRewind(workspaceId, conversationId, rewindId);
    try {
      await this.refuseUnfinishedRun(db, conversationId);
      return await this.restoreHeld(workspaceId, conversationId, rewind);
    } finally {
      release();
    }
  }

  private async restoreHeld(workspaceId: string, conversationId: string, rewind: ConversationRewind): Promise<ConversationRewind> {
    const { database } = await this.workspaces.handle(workspaceId);
    const db = database.db;
    const rewindId = rewind.id;
    let restoreArchiveRef: string | null = null;
    let putBack: PutBack | null = null;
    const record = rewind.archiveRef ? await findCheckout(db, conversationId) : null;
    if (rewind.archiveRef && record) {
      const runner = await this.checkouts.runner(workspaceId, record);
      const commit = await commitOfRef(runner, rewind.archiveRef);
      if (!commit) throw new ConflictError('rewindId', `the archived checkout ${rewind.archiveRef} is no longer in the conversation's checkout`);
      restoreArchiveRef = `${TURN_REF_PREFIX}${conversationId}/restored-${rewindId}`;
      await checkpointTurn(runner, conversationId, `restored-${rewindId}`);
      putBack = { runner, ref: restoreArchiveRef, record };
      await restoreCheckpoint(runner, commit);
      await this.checkouts.sync(workspaceId, conversationId, record).catch(() => null);
    }
    const restoredAt = nowIso();
    const back = await this.recordUnlessRunStarted(db, workspaceId, conversationId, putBack, async (transaction) => {
      const unarchived = await unarchiveMessages(transaction, conversationId, rewindId);
      await markRewindRestored(transaction, rewindId, restoredAt, restoreArchiveRef);
      return unarchived;
    });
    await this.systemLine(workspaceId, conversationId, `Restored rewind ${rewindId}: ${back} message${back === 1 ? '' : 's'} back in the history.${restoreArchiveRef ? ` The checkout is as it was before the rewind; what it held is kept as ${restoreArchiveRef}.` : ''}`);
    return { ...rewind, restoredAt, restoreArchiveRef };
  }

  /**
   * Records what a rewind or restore changed, in one transaction that first checks again for a run:
   * another process may have started one while the git steps ran. Refused (409 naming the run), the
   * checkout goes back to the archive the git steps made of it, so nothing has changed.
   */
  private async recordUnlessRunStarted<T>(
    db: Kysely<WorkspaceSchema>,
    workspaceId: string,
    conversationId: string,
    putBack: PutBack | null,
    write: (transaction: Kysely<WorkspaceSchema>) => Promise<T>,
  ): Promise<T> {
    try {
      return await db.transaction().execute(async (transaction) => {
        await this.refuseUnfinishedRun(transaction, conversationId);
        return write(transaction);
      });
    } catch (error) {
      if (putBack) {
        const commit = await commitOfRef(putBack.runner, putBack.ref);
        if (commit) await restoreCheckpoint(putBack.runner, commit);
        await this.checkouts.sync(workspaceId, conversationId, putBack.record).catch(() => null);
      }
      throw error;
    }
  }

  /** 409 naming a run of the conversation still queued or running, in this process or another. */
  private async refuseUnfinishedRun(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<void> {
    const running = await unfinishedRunOfConversation(db, conversationId);
    if (running) throw new ConflictError('conversationId', `run ${running} is active in this conversation; cancel it or wait for it to end before rewinding`);
  }

  private async systemLine(workspaceId: string, conversationId: string, content: string): Promise<void> {
    await this.messages.append(workspaceId, { conversationId, runId: null, role: 'system', authorKind: 'system', authorId: null, mode: null, picker: null, content });
  }
}

/** Where the checkout was archived before a rewind's or restore's reset, to return to when it is refused. */
interface PutBack {
  runner: Awaited<ReturnType<CheckoutService['runner']>>;
  ref: string;
  record: NonNullable<Awaited<ReturnType<typeof findCheckout>>>;
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}
