import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { newId, nowIso } from '../../ids.js';
import type { Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { markMessagesHeld } from '../../store/repositories/run-repository.js';
import { claimHeldMessages, deleteHeldMessage, insertHeldMessage, type HeldMessage } from '../../store/repositories/held-message-repository.js';

const ENDED: ReadonlySet<Run['state']> = new Set(['completed', 'failed', 'cancelled']);
/** Posting a held message takes well under a second; a claim this old belongs to a process that died before starting it. */
const STALE_CLAIM_MS = 2 * 60_000;

export type HeldMessageInput = Omit<HeldMessage, 'id' | 'createdAt'>;

export interface FollowUpTurnsDeps {
  db(workspaceId: string): Promise<Kysely<WorkspaceSchema>>;
  /** Posts the held message again, as the operator sent it: it records the message and starts its turn (or is held again). */
  start(workspaceId: string, message: HeldMessage): Promise<unknown>;
  logger: Logger;
}

/**
 * Messages that wait for a turn to end (HAR-5): sent while a turn whose runtime cannot be steered was
 * going, each starts the next turn once that one has ended, one after the other in the order sent —
 * so a message never starts a turn beside a going one, and its answer comes after that turn's answer.
 *
 * The wait is stored (held_messages) before the POST answers: no data is ever lost, so a restart or the
 * death of the process that took the message must not drop it. The end is learnt from the run's own
 * `run.updated` event (published here or, on a shared database, by the process that ran it); the
 * processes that hear it race for the rows with one UPDATE, so exactly one starts each message. A row
 * is deleted only once its turn started; a sweep at start-up (and on a shared database with each
 * heartbeat) starts what waits for a run that ended while nobody listened.
 */
export class FollowUpTurns {
  /** Claims are `${holderId}:n`: a start-up sweep knows every other holder's claim as a dead one's. */
  private readonly holderId = newId('hold');
  private claims = 0;
  private stopped = false;

  constructor(private readonly deps: FollowUpTurnsDeps) {}

  /** Stores the message behind the run; a run that has already ended (a race with the message) starts it now. */
  async hold(workspaceId: string, input: HeldMessageInput): Promise<void> {
    const db = await this.deps.db(workspaceId);
    await insertHeldMessage(db, { ...input, id: newId('held'), createdAt: nowIso() });
    // After the row is stored, so an end that sees the mark finds the row to claim; an end written
    // before the mark is seen here instead (the mark's statement waits on the row and returns it).
    const state = await markMessagesHeld(db, input.awaitedRunId);
    if (!state || ENDED.has(state)) this.release(workspaceId, { awaitedRunId: input.awaitedRunId });
  }

  /**
   * Every run.updated event, wherever it was published: an ended run releases the messages waiting
   * for it. An end that says no message waits (`messagesHeld: false`, read in the statement that
   * ended the run, after any hold had marked it) costs no claim; one that does not say is claimed for.
   */
  runUpdated(workspaceId: string, run: Run): void {
    if (ENDED.has(run.state) && run.messagesHeld !== false) this.release(workspaceId, { awaitedRunId: run.id });
  }

  /**
   * Starts what waits for runs no longer going. `alone`: no other process shares the store, so every
   * claim not made by this holder is a dead process's; else a claim older than a few minutes is.
   */
  async sweep(workspaceId: string, options: { alone: boolean }): Promise<void> {
    await this.startClaimed(workspaceId, {
      endedRuns: true,
      reclaimClaimsBefore: new Date(Date.now() - STALE_CLAIM_MS).toISOString(),
      reclaimClaimsNotByPrefix: options.alone ? `${this.holderId}:` : null,
    });
  }

  /** Shutting down: claim nothing more; what waits stays stored for the next start. */
  stop(): void {
    this.stopped = true;
  }

  private release(workspaceId: string, which: { awaitedRunId: string }): void {
    void this.startClaimed(workspaceId, which).catch((error: unknown) => this.deps.logger.error({ err: error }, 'messages that waited for a turn to end could not be claimed'));
  }

  private async startClaimed(workspaceId: string, which: Parameters<typeof claimHeldMessages>[3]): Promise<void> {
    if (this.stopped) return;
    const db = await this.deps.db(workspaceId);
    this.claims += 1;
    const claimed = await claimHeldMessages(db, `${this.holderId}:${this.claims}`, nowIso(), which);
    // One after the other: the second message finds the first one's turn going and goes to it (or waits for it).
    for (const message of claimed) {
      // Claimed but not started: the row stays, and the next start takes it over.
      if (this.stopped) return;
      try {
        await this.deps.start(workspaceId, message);
      } catch (error) {
        // Shutting down is no reason to drop it; anything else (its conversation deleted, …) never will start it.
        if (this.stopped) return;
        this.deps.logger.error({ err: error, heldMessageId: message.id }, 'a message that waited for a turn to end could not start its turn');
      }
      await deleteHeldMessage(db, message.id);
    }
  }
}
