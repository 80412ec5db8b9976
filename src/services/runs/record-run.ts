import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import pg from 'pg';
import type { RunScope } from '../../adapters/agent-transport.js';
import { getCapabilityProfile } from '../../core/capability-profiles.js';
import { buildCompletionContract } from '../../core/completion-contract.js';
import { spaceModeToPicker } from '../../core/picker.js';
import type { AgentEvent } from '../../harness/agent-events.js';
import type { Run } from '../../schemas/run.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { PresenceService } from '../agents/presence-service.js';
import type { EventBus } from '../event-bus.js';
import { compactionLine } from './compaction-line.js';
import { LivenessWatchdog } from './liveness-watchdog.js';
import type { MessageService, NewMessage } from './message-service.js';
import { endRunWithRows, writesRunEndWithRows } from '../../store/repositories/run-end-with-rows.js';
import type { StatementPart } from '../../store/one-statement.js';
import { RunLog, type RunLogDatabase } from './run-log.js';
import { runChange, type RunService } from './run-service.js';

/** The services the record stage writes to. */
export interface RecordRunDeps {
  runs: RunService;
  events: EventBus;
  messages: MessageService;
  presence: PresenceService;
  logger: Logger;
  /** Milliseconds in one "minute" of silenceTimeoutMinutes; shortened only by tests. */
  minuteMs: number;
}

/** The run being recorded: its scope, where it is stored and the conversation whose tree it belongs to. */
export interface RecordedRun {
  scope: RunScope;
  /** The conversation whose run tree the run belongs to (a child run's too): its events are published under it. */
  treeConversationId: string | null;
  database: RunLogDatabase & { db: Kysely<WorkspaceSchema> };
  /** The run's row as recorded when it was queued; the recorder is its one writer from here on. */
  row: Run;
  silenceMinutes: number;
  /** Called with the final result when the run has ended and been recorded. */
  onFinished?: ((run: Run, finalText: string) => void | Promise<void>) | undefined;
  /** PostgreSQL: writes the run's end carries (a queued run's job completion). */
  endCarries?: CarriedPart | undefined;
}

/**
 * A part the run's end statement carries (PostgreSQL: a queued run's job completion, NF-SCALE: a
 * round trip less per run), and whom to tell that it was written. When the end is written without it
 * (the combined statement was refused, or the run never reached its end), `carried` is not called
 * and its owner sends the part's writes itself.
 */
export interface CarriedPart {
  part: StatementPart;
  carried(): void;
}

/** What a run ended with, besides its state and error. */
export interface RunEnding {
  deliverableFailed?: boolean;
  usage?: Run['usage'];
  costUsd?: number;
}

/**
 * The record stage of the run pipeline (HAR-6, AG-5): every AgentEvent goes to the event bus (SSE),
 * the run log and the liveness watchdog; the run's last words are kept; and `finish` writes the
 * run's typed terminal state once its log is whole (or says it is not).
 */
export class RunRecorder {
  readonly log: RunLog;
  readonly watchdog: LivenessWatchdog;
  /** Calls whose tool really ran (the gate let them through, or the runner reported running them). */
  readonly executedCalls = new Set<string>();
  /** The last text the agent wrote: its answer or report. */
  finalText = '';
  private lostLogWrites = 0;
  private firstLostLogWrite = '';
  /**
   * The sandbox description not stored yet: the run's next row write carries it (its end, at the
   * latest), instead of a statement of its own at the run's start (NF-SCALE: a round trip per turn).
   */
  private unwrittenSandbox: string | undefined;
  /**
   * The run's row with every change made so far, applied in the order they were made (a liveness
   * change may overlap another write): the recorder is the one writer of a run in progress, so it
   * never reads the row back before a change.
   */
  private row: Run;
  /** Steps run first when the run ends (release the sandbox, sync the checkout…), in order. */
  private readonly endingSteps: Array<() => void | Promise<void>> = [];

  constructor(
    private readonly deps: RecordRunDeps,
    private readonly run: RecordedRun,
  ) {
    const { runId } = run.scope;
    this.row = run.row;
    // HAR-6: a run-log write that cannot be stored is reported, never dropped silently: it is logged,
    // the run's error says its log is incomplete at once, and a run that would have completed ends
    // failed instead (a run whose log has holes must not look complete and healthy).
    this.log = new RunLog(run.database, runId, (error, what) => {
      this.lostLogWrites += 1;
      this.logError(`run ${runId}: run-log write failed (${what})`, error);
      if (this.lostLogWrites > 1) return;
      this.firstLostLogWrite = `${what}: ${error instanceof Error ? error.message : String(error)}`;
      this.update({ error: this.logIncomplete() }).catch((updateError: unknown) => this.logError(`run ${runId}: could not mark the run's log incomplete`, updateError));
    });
    this.watchdog = new LivenessWatchdog(
      run.silenceMinutes * deps.minuteMs,
      () => this.setLiveness('stalled'),
      () => this.setLiveness('ok'),
    );
  }

  /** Reports a failure with its error object (serialized by the logger, stack included). */
  logError(message: string, error: unknown): void {
    this.deps.logger.error({ err: error }, message);
  }

  private logIncomplete(): string {
    return `run log incomplete: ${this.lostLogWrites} write(s) could not be stored (first: ${this.firstLostLogWrite})`;
  }

  /** Writes part of the run's row (with the sandbox description, while it is not stored). */
  async update(change: Parameters<RunService['update']>[3]): Promise<Run> {
    const { patch, run, carried } = this.change(change);
    this.row = run;
    const written = await this.deps.runs.writeChange(this.run.scope.workspaceId, this.run.database.db, patch, run);
    this.stored(carried);
    return written;
  }

  /** A change of the row as {@link runChange} makes it, carrying the unwritten sandbox description. */
  private change(change: Parameters<RunService['update']>[3]): ReturnType<typeof runChange> & { carried: string | undefined } {
    const carried = change.sandbox === undefined ? this.unwrittenSandbox : undefined;
    return { ...runChange(this.row, carried === undefined ? change : { ...change, sandbox: carried }), carried };
  }

  /** A write that carried the sandbox description succeeded: later writes need not (a failed one leaves it to the next). */
  private stored(carried: string | undefined): void {
    if (carried !== undefined && this.unwrittenSandbox === carried) this.unwrittenSandbox = undefined;
  }

  setLiveness(liveness: Run['liveness']): void {
    this.update({ liveness }).catch((error: unknown) => this.logError(`run ${this.run.scope.runId}: could not record liveness ${liveness}`, error));
  }

  /**
   * Records which sandbox wraps the run. It is announced at once (`run.updated` carries it) and
   * stored with the run's next row write — its end, unless a liveness change comes first — so the
   * ended run's row always has it. A write that fails to store it is logged by its caller, and the
   * next write carries it again; the run's end is that write at the latest.
   */
  setSandbox(description: string): void {
    this.unwrittenSandbox = description;
    this.row = { ...this.row, sandbox: description };
    this.deps.events.publish(this.run.scope.workspaceId, 'run.updated', this.row);
  }

  /**
   * PostgreSQL: the run's end with its answer message (if any) and the part it carries (if any), in
   * one statement (NF-SCALE: a round trip less per turn for each), announced as the separate writes
   * were — the run's end, then the message. A statement the database refused wrote nothing (it is
   * atomic), so the end is then written alone as before and the answer appended after it: the run
   * never stays unended because its answer (or the part) could not be stored; the part's owner,
   * never told it was carried, sends it itself.
   */
  private async endTogether(ending: Parameters<RunService['update']>[3], answer: NewMessage | null): Promise<{ run: Run; answered: boolean }> {
    const { workspaceId, runId } = this.run.scope;
    const { patch, run, carried } = this.change(ending);
    const pending = answer ? this.deps.messages.pendingMessage(workspaceId, answer) : null;
    const db = this.run.database.db;
    const carries = this.run.endCarries;
    try {
      const { messagesHeld } = await endRunWithRows(db, runId, patch, pending ? pending.inserts(db) : [], carries?.part);
      this.row = run;
      this.stored(carried);
      carries?.carried();
      this.deps.events.publish(workspaceId, 'run.updated', { ...run, messagesHeld });
      pending?.published();
      return { run, answered: pending !== null };
    } catch (error) {
      if (!(error instanceof pg.DatabaseError)) throw error;
      this.logError(`run ${runId}: its end and ${pending ? 'answer' : 'job completion'} could not be written together; writing them one after the other`, error);
      return { run: await this.update(ending), answered: false };
    }
  }

  /** Adds a step to run when the run ends, before its end is recorded. */
  onEnding(step: () => void | Promise<void>): void {
    this.endingSteps.push(step);
  }

  /** One event of the run: to SSE, the watchdog, the run log; an assistant message's text becomes the final text. */
  emit(event: AgentEvent): void {
    const { workspaceId, runId, agent } = this.run.scope;
    this.watchdog.touch();
    this.deps.events.publish(workspaceId, 'run.event', { runId, conversationId: this.run.treeConversationId, agentId: agent.id, event });
    if (event.type === 'looping_detected') this.setLiveness('looping');
    if (event.type === 'looping_cleared') this.setLiveness('ok');
    this.persist(event);
    if (event.type === 'context_compacted') {
      this.systemLine(compactionLine(event)).catch((error: unknown) => this.logError(`run ${runId}: could not show its compaction`, error));
    }
    if (event.type === 'assistant_message') {
      const text = event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      if (text.trim()) this.finalText = text;
    }
  }

  /** Stores an event in the run log; tool calls get a row with their input, decision and output. */
  private persist(event: AgentEvent): void {
    if (event.type === 'text_delta' || event.type === 'thinking_delta') return;
    if (event.type === 'tool_call_start') this.log.toolCallStarted(event.call);
    if (event.type === 'tool_call_end') this.log.toolCallEnded(event.call.id, event.result, this.executedCalls.has(event.call.id));
    this.log.event(event.type, event);
  }

  /** A system line in the conversation the run speaks in (none for a child run). */
  async systemLine(content: string): Promise<void> {
    const { workspaceId, runId, conversationId, mode } = this.run.scope;
    if (!conversationId) return;
    await this.deps.messages.append(workspaceId, { conversationId, runId, role: 'system', authorKind: 'system', authorId: null, mode, picker: null, content });
  }

  /**
   * Ends the run: the ending steps, then the log's end, then the row's terminal state, then the
   * agent's answer and any failure line in its conversation (HAR-4, HAR-6).
   */
  async finish(state: Run['state'], error: string | null, extra: RunEnding = {}): Promise<{ run: Run; finalText: string }> {
    const { workspaceId, runId, agent, conversationId, mode, autonomy } = this.run.scope;
    this.watchdog.stop();
    for (const step of this.endingSteps.splice(0)) await step();
    // The log's end is written before the run's row says it ended, so a finished run's log is whole
    // or the run says it is not (HAR-6). One flush writes what is queued and the end together (in
    // order): on PostgreSQL each flush is a statement.
    this.log.event('run_end', { state, error, deliverableFailed: extra.deliverableFailed ?? false });
    await this.log.flush();
    if (this.lostLogWrites > 0) {
      error = error ? `${error}; ${this.logIncomplete()}` : this.logIncomplete();
      if (state === 'completed') state = 'failed';
    }
    const ending: Parameters<RunService['update']>[3] = {
      state,
      error,
      ...(state === 'failed' ? { liveness: 'failed' as const } : { liveness: 'ok' as const }),
      ...(extra.deliverableFailed !== undefined ? { deliverableFailed: extra.deliverableFailed } : {}),
      ...(extra.usage ? { usage: extra.usage } : {}),
      ...(extra.costUsd !== undefined ? { costUsd: extra.costUsd } : {}),
    };
    const finalText = this.finalText;
    const answer: NewMessage | null =
      conversationId && finalText.trim()
        ? { conversationId, runId, role: 'assistant', authorKind: 'agent', authorId: agent.id, mode, picker: spaceModeToPicker(mode, autonomy), content: finalText }
        : null;
    const together = (answer !== null || this.run.endCarries !== undefined) && writesRunEndWithRows(this.run.database.db);
    const { run, answered } = together ? await this.endTogether(ending, answer) : { run: await this.update(ending), answered: false };
    if (answer && !answered) await this.deps.messages.append(workspaceId, answer);
    if (extra.deliverableFailed) {
      const contract = buildCompletionContract(getCapabilityProfile(mode));
      if (contract) await this.systemLine(contract.failureLine);
    }
    if (state === 'failed') await this.systemLine(`Run failed: ${error ?? 'unknown error'}`);
    this.deps.presence.set(workspaceId, agent.id, state === 'completed' ? 'done' : 'idle', runId);
    await this.run.onFinished?.(run, finalText);
    return { run, finalText };
  }
}
