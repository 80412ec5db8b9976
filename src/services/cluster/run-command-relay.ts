import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ConflictError } from '../../errors/conflict-error.js';
import type { DomainError } from '../../errors/domain-error.js';
import { newId, nowIso } from '../../ids.js';
import { finishRunCommand, findRunCommand, insertRunCommand, moveRunCommand } from '../../store/repositories/run-command-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { RelayedError, type RelayedErrorBody } from './relayed-error.js';

/** The controls that must reach the process executing a run (HAR-5, RLY-4). */
export type RunCommandKind = 'cancel' | 'pause' | 'resume' | 'steer' | 'answer';

/** How one kind of command is applied by the process that owns its target. */
export interface RunCommandOwner {
  /** Whether this process holds the target: the run it executes, or the question its run waits on. */
  owns(workspaceId: string, target: string): boolean;
  /** Applies the command locally; its return value (JSON) is the sender's answer, a DomainError its refusal. */
  apply(workspaceId: string, target: string, body: unknown): unknown;
}

/** How long a sender waits for an owner to take the command, then again for its answer. */
const DEFAULT_ANSWER_MS = 3_000;

/**
 * Run control across processes on PostgreSQL. A control that arrives at a process that
 * does not execute the run is written as a `run_commands` row and announced (ids only; the steer
 * text or answers stay in the row, so their size is not bound by NOTIFY's 8 kB). Every process
 * hears it; the one that owns the target takes the row (pending → taken, so exactly one acts),
 * applies it with the same code a local request uses, and writes back the outcome — its value, or
 * its refusal with status, field and message — which the sender returns as if it had been local.
 * No owner within the wait: the row becomes `unclaimed` and the sender says the run is not in progress.
 */
export class RunCommandRelay {
  private readonly owners = new Map<RunCommandKind, RunCommandOwner>();
  private readonly waiting = new Map<string, () => void>();

  constructor(
    private readonly dbOf: (workspaceId: string) => Promise<Kysely<WorkspaceSchema>>,
    private readonly origin: string,
    private readonly logger: Logger,
    private readonly answerMs = DEFAULT_ANSWER_MS,
  ) {}

  register(kind: RunCommandKind, owner: RunCommandOwner): void {
    this.owners.set(kind, owner);
  }

  /**
   * Sends a command to whichever process owns `target` and returns its answer; throws the owner's
   * refusal, or `nobodyOwns()` when no process takes it.
   */
  async send(workspaceId: string, kind: RunCommandKind, target: string, body: unknown, nobodyOwns: () => DomainError): Promise<unknown> {
    const db = await this.dbOf(workspaceId);
    const id = newId('cmd');
    const answered = new Promise<void>((resolve) => this.waiting.set(id, resolve));
    try {
      await insertRunCommand(db, workspaceId, {
        id,
        target,
        kind,
        body: JSON.stringify(body ?? null),
        origin: this.origin,
        status: 'pending',
        result: null,
        created_at: nowIso(),
      });
      if (!(await within(answered, this.answerMs))) {
        if (await moveRunCommand(db, id, 'pending', 'unclaimed')) throw nobodyOwns();
        // An owner took it and is applying it: give it one more wait.
        if (!(await within(answered, this.answerMs))) throw new ConflictError('runId', `the process executing ${target} did not answer in time`);
      }
      const row = await findRunCommand(db, id);
      if (row?.status === 'done') return row.result === null ? null : (JSON.parse(row.result) as unknown);
      throw new RelayedError(JSON.parse(row?.result ?? 'null') as RelayedErrorBody);
    } finally {
      this.waiting.delete(id);
    }
  }

  /** A notification on the commands channel: a new command (`{w, id}`) or an answer (`{w, id, answered}`). */
  notified(payload: string): void {
    let parsed: { w?: unknown; id?: unknown; answered?: unknown };
    try {
      parsed = (JSON.parse(payload) ?? {}) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed.w !== 'string' || typeof parsed.id !== 'string') return;
    if (parsed.answered === true) {
      this.waiting.get(parsed.id)?.();
      return;
    }
    void this.consider(parsed.w, parsed.id).catch((error: unknown) => this.logger.warn({ err: error, command: parsed.id }, 'a run command could not be applied'));
  }

  private async consider(workspaceId: string, id: string): Promise<void> {
    const db = await this.dbOf(workspaceId);
    const row = await findRunCommand(db, id);
    if (!row || row.status !== 'pending' || row.origin === this.origin) return;
    const owner = this.owners.get(row.kind as RunCommandKind);
    if (!owner?.owns(workspaceId, row.target)) return;
    if (!(await moveRunCommand(db, id, 'pending', 'taken'))) return;
    let outcome: { status: 'done' | 'failed'; result: string | null };
    try {
      const value = await owner.apply(workspaceId, row.target, JSON.parse(row.body) as unknown);
      outcome = { status: 'done', result: JSON.stringify(value ?? null) };
    } catch (error) {
      outcome = { status: 'failed', result: JSON.stringify(RelayedError.bodyOf(error)) };
    }
    await finishRunCommand(db, workspaceId, id, outcome);
  }
}

/** Whether the promise settles within `ms`. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
