import type { Kysely } from 'kysely';
import { newId, nowIso } from '../../ids.js';
import type { InheritedRules } from '../../core/policy/inherited-rules.js';
import type { AgentState } from '../../schemas/agent.js';
import type { Run, RunLiveness, RunState } from '../../schemas/run.js';
import type { Message } from '../../schemas/message.js';
import { insertTurnRows } from '../../store/repositories/turn-rows-statement.js';
import { insertRunWithDispatch, type RowsWithRun } from '../../store/repositories/run-dispatch-repository.js';
import { endRun, findRun, insertRun, listRuns, newestRunStates, unfinishedRunIds, unfinishedRunStates, updateRun, type RunChange } from '../../store/repositories/run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { deriveAgentState } from '../agents/derive-agent-state.js';
import type { EventBus } from '../event-bus.js';

/**
 * Rows committed in the run's own transaction (a turn's message: a turn is never recorded without
 * its message, nor its message without its turn), announced once that has committed, before the run.
 */
export interface WrittenWithRun extends RowsWithRun {
  published(): void;
  /** When the rows are one message without files: it (a turn accepted for the workers is then written by a kept statement). */
  soleMessage?: Message;
}

export interface RecordRunInput {
  agentId: string;
  spaceId?: string | null;
  conversationId?: string | null;
  parentRunId?: string | null;
  state?: RunState;
  mode?: string | null;
  autonomy?: string | null;
  model?: string | null;
  depth?: number;
  sandbox?: string | null;
  /** SEC-9: the rule scopes of the runs that started this one. */
  inheritedRules?: InheritedRules;
}

export interface UpdateRunInput {
  state?: RunState;
  liveness?: RunLiveness;
  error?: string | null;
  deliverableFailed?: boolean;
  usage?: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  costUsd?: number;
  model?: string | null;
  sandbox?: string | null;
}

const FINISHED: ReadonlySet<RunState> = new Set(['completed', 'failed', 'cancelled']);

/** Kept here too: routes and transports map rows through the run repository's one mapper. */
export { toRun } from '../../store/repositories/run-repository.js';

/** Records run logs (HAR-6) and derives agent state from them (AG-3). */
export class RunService {
  constructor(private readonly events: EventBus) {}

  async record(workspaceId: string, db: Kysely<WorkspaceSchema>, input: RecordRunInput, alongside?: WrittenWithRun): Promise<Run> {
    const run = newRun(input);
    if (alongside) {
      await db.transaction().execute(async (trx) => {
        await alongside.write(trx);
        await insertRun(trx, run);
      });
      alongside.published();
    } else {
      await insertRun(db, run);
    }
    this.events.publish(workspaceId, 'run.created', run);
    return run;
  }

  /**
   * Records a `queued` run together with the job payload that will put it on the runs
   * queue (one transaction), so a process that dies before its enqueue leaves it re-enqueueable.
   */
  async recordForDispatch(workspaceId: string, db: Kysely<WorkspaceSchema>, input: RecordRunInput, payloadFor: (run: Run) => unknown, alongside?: WrittenWithRun): Promise<Run> {
    const run = newRun({ ...input, state: 'queued' });
    // A posted turn's message, run and dispatch row: one statement compiled once per database on
    // PostgreSQL (NF-SCALE, bursts); anything else is written as before.
    const payload = payloadFor(run);
    const written = alongside?.soleMessage !== undefined && (await insertTurnRows(db, alongside.soleMessage, run, payload, Date.now()));
    if (!written) await insertRunWithDispatch(db, run, payload, Date.now(), alongside);
    alongside?.published();
    this.events.publish(workspaceId, 'run.created', run);
    return run;
  }

  async update(workspaceId: string, db: Kysely<WorkspaceSchema>, runId: string, change: UpdateRunInput): Promise<Run> {
    const current = await findRun(db, runId);
    if (!current) throw new Error(`run ${runId} does not exist`);
    const { patch, run } = runChange(current, change);
    return this.writeChange(workspaceId, db, patch, run);
  }

  /**
   * Writes a change made with {@link runChange} from a row the caller already holds, and publishes the
   * run: for a run's recorder, the one writer of a run in progress, which keeps the row it last wrote
   * instead of reading it back before each change (three reads per turn).
   */
  async writeChange(workspaceId: string, db: Kysely<WorkspaceSchema>, patch: RunChange, run: Run): Promise<Run> {
    if (patch.state && FINISHED.has(patch.state)) {
      // The end says, in its own statement, whether messages wait for it (HAR-5): the processes
      // that hear it claim them only then. Only the event carries it; the run is returned as it is.
      const { messagesHeld } = await endRun(db, run.id, patch);
      this.events.publish(workspaceId, 'run.updated', { ...run, messagesHeld });
      return run;
    }
    await updateRun(db, run.id, patch);
    this.events.publish(workspaceId, 'run.updated', run);
    return run;
  }

  async listForAgent(db: Kysely<WorkspaceSchema>, agentId: string, limit = 50): Promise<Run[]> {
    return listRuns(db, { agentId, limit });
  }

  /** AG-3 for many agents at once: one indexed query, whatever the number of agents. */
  async deriveStates(db: Kysely<WorkspaceSchema>, agentIds: string[]): Promise<Map<string, AgentState>> {
    const states = new Map<string, AgentState>();
    if (agentIds.length === 0) return states;
    const { newest: newestByAgent, running } = await newestRunStates(db, agentIds);
    for (const agentId of agentIds) {
      const newest = newestByAgent.get(agentId);
      states.set(
        agentId,
        deriveAgentState({
          newest: newest ?? null,
          anyRunning: running.has(agentId),
        }),
      );
    }
    return states;
  }

  /**
   * On start of the embedded server (one process per store): every run left `running`/`queued` by a
   * crash is marked failed with liveness `dead` (AG-5).
   */
  async markOrphansDead(workspaceId: string, db: Kysely<WorkspaceSchema>): Promise<number> {
    return this.markDead(workspaceId, db, await unfinishedRunIds(db), 'the server stopped while this run was in progress');
  }

  /**
   * A store shared by several processes: only orphans die — runs whose owner process is
   * dead (taken exactly once across processes) and, with `unowned` (at start-up), `running` runs that
   * no process owns (every process owns a run before it can be `running`: such a run was left by a
   * version that recorded no owner). A `queued` run nobody owns waits in the runs queue; a run of a
   * live process is never touched.
   */
  async markSharedOrphansDead(
    workspaceId: string,
    db: Kysely<WorkspaceSchema>,
    ownership: { takeOrphans(workspaceId: string): Promise<string[]>; owned(workspaceId: string, runIds: readonly string[]): Promise<Set<string>> },
    options: { unowned: boolean },
  ): Promise<number> {
    const ofDeadOwners = await ownership.takeOrphans(workspaceId);
    if (!options.unowned) return this.markDead(workspaceId, db, ofDeadOwners, 'the process executing this run stopped while it was in progress');
    const running = (await unfinishedRunStates(db)).filter((run) => run.state === 'running').map((run) => run.id);
    // Read after the states: a run that became running meanwhile was owned first, so it shows here.
    const owned = await ownership.owned(workspaceId, running);
    const unowned = running.filter((id) => !owned.has(id));
    return this.markDead(workspaceId, db, [...new Set([...ofDeadOwners, ...unowned])], 'the process executing this run stopped while it was in progress');
  }

  /** Marks those of `runIds` that are still unfinished failed/dead; a run that ended meanwhile keeps its end. */
  private async markDead(workspaceId: string, db: Kysely<WorkspaceSchema>, runIds: readonly string[], error: string): Promise<number> {
    let marked = 0;
    for (const runId of runIds) {
      const run = await findRun(db, runId);
      if (!run || FINISHED.has(run.state)) continue;
      await this.update(workspaceId, db, runId, { state: 'failed', liveness: 'dead', error });
      marked += 1;
    }
    return marked;
  }
}

/**
 * The columns `change` writes on a run that is `current`, and the run it then is (no I/O). A start or
 * end time is set once: a run already started or ended keeps its time.
 */
export function runChange(current: Run, change: UpdateRunInput): { patch: RunChange; run: Run } {
  const now = nowIso();
  const patch: RunChange = {};
  if (change.state) {
    patch.state = change.state;
    if (change.state === 'running' && !current.startedAt) patch.startedAt = now;
    if (FINISHED.has(change.state) && !current.endedAt) patch.endedAt = now;
  }
  if (change.liveness) patch.liveness = change.liveness;
  if (change.error !== undefined) patch.error = change.error;
  if (change.deliverableFailed !== undefined) patch.deliverableFailed = change.deliverableFailed;
  if (change.usage) {
    patch.usage = {
      inputTokens: change.usage.inputTokens,
      outputTokens: change.usage.outputTokens,
      cacheReadTokens: change.usage.cacheReadTokens ?? 0,
      cacheWriteTokens: change.usage.cacheWriteTokens ?? 0,
    };
  }
  if (change.costUsd !== undefined) patch.costUsd = change.costUsd;
  if (change.model !== undefined) patch.model = change.model;
  if (change.sandbox !== undefined) patch.sandbox = change.sandbox;
  return { patch, run: { ...current, ...patch } };
}

/** A new run row from what the caller knows; the rest starts empty. */
function newRun(input: RecordRunInput): Run {
  const now = nowIso();
  const state = input.state ?? 'queued';
  return {
    id: newId('run'),
    agentId: input.agentId,
    spaceId: input.spaceId ?? null,
    conversationId: input.conversationId ?? null,
    parentRunId: input.parentRunId ?? null,
    state,
    liveness: 'ok',
    deliverableFailed: false,
    error: null,
    createdAt: now,
    startedAt: state === 'running' ? now : null,
    endedAt: FINISHED.has(state) ? now : null,
    mode: input.mode ?? null,
    autonomy: input.autonomy ?? null,
    model: input.model ?? null,
    depth: input.depth ?? 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    sandbox: input.sandbox ?? null,
    inheritedRules: input.inheritedRules ?? [],
  };
}
