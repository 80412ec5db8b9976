import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { checkAgainstSchema } from '../../core/pipelines/output-schema-check.js';
import type { PipelineDefinition, PipelineNode, PipelineNodeType } from '../../core/pipelines/pipeline-definition.js';
import { findPlaceholders, resolvePlaceholders, TRIGGER_SOURCE } from '../../core/pipelines/placeholders.js';
import { placeholderFields } from '../../core/pipelines/validate-pipeline.js';
import { ConflictError, NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import {
  beginPipelineNodeAttempt,
  cancelPipelineRunRows,
  countInterruptedAttempts,
  countOpenPipelineNodes,
  findPipelineNode,
  findPipelineRunIdByKey,
  findPipelineRunStatus,
  finishPipelineNodeAttempt,
  finishPipelineRunRow,
  insertPipelineRun,
  interruptRunningAttempts,
  listHeldPipelineNodes,
  listPipelineNodes,
  listRunIdsWithStatus,
  loadPipelineRunPlan,
  pipelineNodeAgentCost,
  reopenPipelineRunRows,
  TERMINAL_NODE_STATES,
  updatePipelineNode,
  type PipelineNodeState,
  type PipelineRunStatus,
} from '../../store/repositories/pipeline-run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { PipelineBudgetGate, PipelineRunObserver, PipelineRunSource } from '../orchestrations/pipeline-launcher.js';
import type { JobQueue } from './job-queue.js';
import { CancelledNodeError, PermanentNodeError, RESUMABLE_TYPES, SIDE_EFFECT_FREE_TYPES, type NodeExecutor } from './node-executor.js';
import { SqliteJobQueue } from './sqlite-job-queue.js';

export type { PipelineNodeState, PipelineRunStatus };

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_NODE_STATES);
const NODE_QUEUE = 'pipeline-nodes';
/**
 * A node a budget gate refused stays `queued` with this prefix on its error and no job in the queue:
 * nothing claims it until its run is resumed (ORC-4). No new state, so no migration.
 */
export const HELD_PREFIX = 'waiting for the operator: ';
/**
 * A node the gate held only until a sibling in flight finishes (ORC-4's `wait`: its estimate does not
 * fit beside the reservations yet). Held the same way as {@link HELD_PREFIX}, but nobody has to act:
 * the orchestration resumes the run when room frees up, so the words must not ask the operator.
 */
export const BUDGET_WAIT_PREFIX = 'waiting for budget room: ';
/** Every hold marker; {@link PipelineEngine.resumeRun} re-asks the gates for each node held under any of them. */
const HOLD_PREFIXES = [HELD_PREFIX, BUDGET_WAIT_PREFIX] as const;
/** Interrupted attempts after which an idempotent node is failed instead of started again. */
const MAX_INTERRUPTIONS = 2;

export interface StartPipelineRun {
  workspaceId: string;
  definition: PipelineDefinition;
  pipelineId?: string | null;
  trigger?: { type: string; payload?: unknown };
  source?: { kind: string; id?: string };
  /** A second start with the same key returns the first run (launch is idempotent). */
  idempotencyKey?: string | null;
}

export interface PipelineEngineOptions {
  /** Nodes executing at once per workspace (agent runs are further limited by the executor). */
  concurrency?: number;
  /** Lease on a claimed node job; renewed while the node runs. */
  leaseMs?: number;
  logger?: Logger;
  /**
   * The queue of one workspace: the embedded {@link SqliteJobQueue} by default; pg-boss
   * when the store is PostgreSQL, so every process of a deployment claims from one queue.
   */
  queueFor?: (workspaceId: string, db: Kysely<WorkspaceSchema>) => JobQueue;
  /**
   * False in an API-only process (`serve --role api`): runs are started and nodes enqueued here, but
   * nothing is claimed or executed — a worker does that.
   */
  claims?: boolean;
  /**
   * The name this engine holds claimed node jobs under: on a shared queue the process's own id, so
   * the failover sweep that notices the process dead hands its jobs back by that name at once.
   */
  workerId?: string;
}

interface RunCache {
  definition: PipelineDefinition;
  byKey: Map<string, PipelineNode>;
  /** outputKey → the node that declares it. */
  outputOwners: Map<string, string>;
  dependants: Map<string, string[]>;
  /** Nodes not yet in a terminal state. */
  remaining: number;
  trigger: unknown;
  /** Who started the run (`{kind: 'orchestration', id}` for a launched orchestration). */
  source: { kind: string; id?: string } | null;
  /** Times the run was re-opened ({@link PipelineEngine.restartRun}). */
  generation: number;
}

class NodeCancelled extends Error {}

/**
 * The durable pipeline engine (PIPE-1): node state lives in `pipeline_nodes`, work is claimed from a
 * {@link JobQueue}, independent nodes run in parallel, a node starts when everything it depends on
 * has settled, and a restart resumes every running run. At most once: each attempt of a node has
 * its own idempotency key and row; an attempt found still `running` after a restart was interrupted,
 * and a node with side effects is then failed for the operator unless it is declared idempotent.
 */
export class PipelineEngine {
  readonly workerId: string;
  private readonly executors = new Map<PipelineNodeType, NodeExecutor>();
  private readonly settlesOnAbort = new Set<PipelineNodeType>();
  private readonly queues = new Map<string, JobQueue>();
  private readonly caches = new Map<string, RunCache>();
  private readonly active = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly pumping = new Map<string, Promise<void>>();
  private readonly inflight = new Map<string, { controller: AbortController; finished: Promise<void> }>();
  private readonly settling = new Map<string, Promise<void>>();
  private suspended = false;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly claims: boolean;
  private readonly queueFor: (workspaceId: string, db: Kysely<WorkspaceSchema>) => JobQueue;

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
    options: PipelineEngineOptions = {},
  ) {
    this.workerId = options.workerId ?? newId('wrk');
    this.concurrency = options.concurrency ?? 16;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.logger = options.logger;
    this.claims = options.claims ?? true;
    this.queueFor = options.queueFor ?? ((_workspaceId, db) => new SqliteJobQueue(db));
  }

  private readonly logger: Logger | undefined;

  /**
   * `settlesOnAbort`: the executor itself ends soon after its signal aborts and only then has stopped
   * its work (a plan step ends when its agent run has really stopped), so the engine waits for it
   * instead of settling the node the moment the signal fires.
   */
  registerExecutor(type: PipelineNodeType, executor: NodeExecutor, options: { settlesOnAbort?: boolean } = {}): void {
    this.executors.set(type, executor);
    if (options.settlesOnAbort) this.settlesOnAbort.add(type);
    else this.settlesOnAbort.delete(type);
  }

  private readonly observers: PipelineRunObserver[] = [];

  /**
   * Adds an observer told when a node starts and settles and when a run ends (ORC-4: an orchestration's
   * status follows the run it launched). Observers ignore runs of sources they do not own; a failing
   * observer is logged and never changes the run.
   */
  observe(observer: PipelineRunObserver): void {
    this.observers.push(observer);
  }

  private readonly budgetGates: PipelineBudgetGate[] = [];

  /**
   * Adds a gate asked before a node of an orchestration's run starts (ORC-4's `maxUsd`). A refusal
   * holds the node durably (see {@link HELD_PREFIX}) until {@link resumeRun}; the run stays running.
   */
  addBudgetGate(gate: PipelineBudgetGate): void {
    this.budgetGates.push(gate);
  }

  /** The first refusal of any gate; a gate that throws refuses too (a budget is never bypassed by an error). */
  private async askBudgetGates(workspaceId: string, runId: string, key: string, cache: RunCache): Promise<{ reason: string; hold: 'operator' | 'budgetRoom' } | null> {
    if (this.budgetGates.length === 0 || cache.source?.kind !== 'orchestration' || !cache.source.id) return null;
    const source: PipelineRunSource = { kind: 'orchestration', id: cache.source.id };
    for (const gate of this.budgetGates) {
      try {
        const verdict = await gate.beforeNode({ workspaceId, pipelineRunId: runId, source, nodeKey: key, estimatedUsd: null });
        if (!verdict.proceed) return { reason: verdict.reason, hold: verdict.hold ?? 'operator' };
      } catch (error) {
        this.logger?.error({ err: error, runId, key }, 'pipeline budget gate failed');
        return { reason: `the budget check failed: ${error instanceof Error ? error.message : String(error)}`, hold: 'operator' };
      }
    }
    return null;
  }

  /**
   * Re-enqueues the held nodes of a running run (the operator raised the cap, or the server started
   * again); each asks the gates again when claimed. The hold marker is cleared by a conditional update
   * first, so two concurrent resumes enqueue a node once.
   */
  async resumeRun(workspaceId: string, runId: string): Promise<number> {
    const db = await this.db(workspaceId);
    const run = await this.findRun(db, runId);
    if (run.status !== 'running') return 0;
    const cache = await this.cache(db, run);
    const queue = await this.queue(workspaceId);
    let released = 0;
    for (const prefix of HOLD_PREFIXES) {
      for (const key of await listHeldPipelineNodes(db, runId, prefix)) {
        const node = cache.byKey.get(key);
        if (!node) continue;
        const cleared = await updatePipelineNode(db, runId, key, { error: null }, { inStates: ['queued'], errorPrefix: prefix });
        if (cleared === 0) continue;
        // The first job of this node was completed when it was held; a fresh dedupe key gives it a new one.
        await this.enqueueNode(queue, runId, node, cache.generation, `${runId}:${key}:resumed:${newId('rsm')}`);
        released += 1;
      }
    }
    if (released > 0) {
      this.publish(workspaceId, runId);
      void this.pump(workspaceId);
    }
    return released;
  }

  /** Tells every observer; the returned promise settles when all have (callers normally do not wait). */
  private notify(call: (observer: PipelineRunObserver) => Promise<void>): Promise<void> {
    return Promise.all(
      this.observers.map((observer) => call(observer).catch((error: unknown) => this.logger?.error({ err: error }, 'pipeline observer failed'))),
    ).then(() => undefined);
  }

  /** The run's source as an observer sees it; runs started by the API or a trigger have no owner to tell. */
  private observedSource(cache: RunCache): PipelineRunSource | null {
    return this.observers.length > 0 && cache.source?.kind === 'orchestration' && cache.source.id ? { kind: 'orchestration', id: cache.source.id } : null;
  }

  /** Starts a run: one row per node, roots queued. Idempotent per `idempotencyKey`. */
  async start(input: StartPipelineRun): Promise<{ runId: string; created: boolean }> {
    if (this.suspended) throw new ConflictError('pipeline', 'the server is shutting down');
    const db = await this.db(input.workspaceId);
    const queue = await this.queue(input.workspaceId);
    if (input.idempotencyKey) {
      const existing = await findPipelineRunIdByKey(db, input.idempotencyKey);
      if (existing) return { runId: existing, created: false };
    }
    const runId = newId('pr');
    const definition = input.definition;
    await insertPipelineRun(db, {
      id: runId,
      pipelineId: input.pipelineId ?? null,
      definition,
      trigger: input.trigger ?? { type: 'manual' },
      source: input.source ?? { kind: 'api' },
      idempotencyKey: input.idempotencyKey ?? null,
      at: nowIso(),
    });
    for (const node of definition.nodes) if (node.dependsOn.length === 0) await this.enqueueNode(queue, runId, node, 0);
    this.publish(input.workspaceId, runId);
    void this.pump(input.workspaceId);
    return { runId, created: true };
  }

  /** Cancels a whole run: running nodes are aborted, the rest never start. */
  async cancelRun(workspaceId: string, runId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const run = await this.findRun(db, runId);
    if (run.status !== 'running') throw new ConflictError('runId', `pipeline run ${runId} is ${run.status}, not running`);
    await cancelPipelineRunRows(db, runId, nowIso());
    const aborted: Array<Promise<void>> = [];
    for (const [id, entry] of this.inflight) {
      if (id.startsWith(`${runId}:`)) {
        entry.controller.abort(new NodeCancelled('run cancelled'));
        aborted.push(entry.finished);
      }
    }
    await Promise.all(aborted);
    const cached = this.caches.get(runId) ?? (await this.cache(db, run));
    this.caches.delete(runId);
    this.publish(workspaceId, runId);
    const source = this.observedSource(cached);
    if (source) this.notify((observer) => observer.onPipelineFinished({ workspaceId, pipelineRunId: runId, source, state: 'cancelled', error: 'cancelled by the operator' }));
  }

  /** Cancels one node; its dependants become blocked (unless it continues on fail). */
  async cancelNode(workspaceId: string, runId: string, key: string): Promise<void> {
    const db = await this.db(workspaceId);
    const run = await this.findRun(db, runId);
    if (run.status !== 'running') throw new ConflictError('runId', `pipeline run ${runId} is ${run.status}, not running`);
    const node = await findPipelineNode(db, runId, key);
    if (!node) throw new NotFoundError('pipeline node', key, 'key');
    if (TERMINAL.has(node.state)) throw new ConflictError('key', `node ${key} is already ${node.state}`);
    const entry = this.inflight.get(`${runId}:${key}`);
    if (entry) {
      entry.controller.abort(new NodeCancelled('cancelled by the operator'));
      await entry.finished;
      return;
    }
    await this.settle(workspaceId, runId, key, { state: 'cancelled', error: 'cancelled by the operator' });
  }

  /**
   * Re-opens a stopped (`cancelled` or `failed`) run: the nodes that did not finish (`failed`,
   * `cancelled`, `blocked`, `skipped`; or only `keys` of them) go back to `pending` with their outcome
   * cleared, the run is `running` again in a new generation, and the ones whose dependencies are all
   * settled are queued. Finished nodes keep their outputs and are not run again (PLAN-8's resume).
   * Returns the keys re-opened; 409 while a node of the run is still running (its cancel has not
   * landed) or when nothing is left to run.
   */
  async restartRun(workspaceId: string, runId: string, keys?: readonly string[]): Promise<string[]> {
    if (this.suspended) throw new ConflictError('pipeline', 'the server is shutting down');
    const db = await this.db(workspaceId);
    const run = await this.findRun(db, runId);
    if (run.status !== 'cancelled' && run.status !== 'failed') throw new ConflictError('runId', `pipeline run ${runId} is ${run.status}; only a cancelled or failed run can be re-opened`);
    const nodes = await listPipelineNodes(db, runId);
    if (nodes.some((node) => node.state === 'running' || this.inflight.has(`${runId}:${node.key}`))) throw new ConflictError('runId', `pipeline run ${runId} still has a node stopping; try again in a moment`);
    const wanted = keys ? new Set(keys) : null;
    const again = nodes.filter((node) => node.state !== 'done' && (wanted === null || wanted.has(node.key))).map((node) => node.key);
    if (again.length === 0) throw new ConflictError('runId', `pipeline run ${runId} has no unfinished node to run again`);
    if (!(await reopenPipelineRunRows(db, runId, run.status, again, nowIso()))) throw new ConflictError('runId', `pipeline run ${runId} was re-opened concurrently`);
    this.caches.delete(runId);
    const cache = await this.cache(db, { id: runId });
    const queue = await this.queue(workspaceId);
    const states = new Map(nodes.map((node) => [node.key, again.includes(node.key) ? 'pending' : node.state]));
    for (const key of again) {
      const node = cache.byKey.get(key);
      if (!node || node.dependsOn.some((dependency) => !TERMINAL.has(states.get(dependency) ?? 'pending'))) continue;
      const deps = nodes.filter((row) => node.dependsOn.includes(row.key));
      if (this.readiness(cache, deps).state !== 'queued') continue;
      if ((await updatePipelineNode(db, runId, key, { state: 'queued' }, { inStates: ['pending'] })) > 0) await this.enqueueNode(queue, runId, node, cache.generation);
    }
    this.publish(workspaceId, runId);
    void this.pump(workspaceId);
    return again;
  }

  /**
   * On start (PIPE-1 durability): jobs a previous process held are released — one process owns a
   * workspace's file, so they are abandoned — and every running run is pumped again. The attempt
   * rows left `running` are dealt with when their node is claimed (at most once).
   */
  async resume(workspaceId: string): Promise<number> {
    const db = await this.db(workspaceId);
    const queue = await this.queue(workspaceId);
    await queue.reclaimAbandoned(this.workerId);
    const running = await listRunIdsWithStatus(db, 'running');
    // A run whose nodes all settled while the previous process was stopping is finished now.
    for (const id of running) await this.finishIfDone(workspaceId, id);
    // Held nodes (ORC-4) ask their gates again after a restart: still over budget, they are held again.
    for (const id of running) await this.resumeRun(workspaceId, id);
    void this.pump(workspaceId);
    return running.length;
  }

  /**
   * The first half of {@link suspend}: claims nothing from now on and waits up to `graceMs` for the
   * nodes in flight to finish and settle (their dependants are queued for the other workers). Nothing
   * is aborted: a worker's drain stops its own runs after this, with their cause, then suspends.
   */
  async drain(graceMs: number): Promise<void> {
    this.suspended = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (graceMs > 0 && this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all([...this.inflight.values()].map((entry) => entry.finished)), grace]);
      clearTimeout(timer);
      await Promise.all([...this.settling.values()]);
    }
  }

  /**
   * On shutdown: stop claiming; nodes in flight get up to `graceMs` to finish (a worker's SIGTERM),
   * then the rest are aborted without recording an outcome and their jobs given back.
   */
  async suspend(graceMs = 0): Promise<void> {
    await this.drain(graceMs);
    const entries = [...this.inflight.values()];
    for (const entry of entries) entry.controller.abort(new Error('server shutting down'));
    await Promise.all(entries.map((entry) => entry.finished));
    await Promise.all([...this.pumping.values()]);
    for (const queue of this.queues.values()) await queue.release(this.workerId).catch(() => 0);
  }

  // ---- scheduling ------------------------------------------------------------------------------

  /** Queues a node's job; its dedupe key is per run generation, so a re-opened run's nodes are queued afresh. */
  private async enqueueNode(queue: JobQueue, runId: string, node: PipelineNode, generation: number, dedupeKey = generation === 0 ? `${runId}:${node.key}` : `${runId}:${node.key}:g${generation}`): Promise<void> {
    await queue.enqueue({
      queue: NODE_QUEUE,
      payload: { runId, key: node.key },
      dedupeKey,
      maxAttempts: (node.retries?.max ?? 0) + 1,
      backoffMs: node.retries?.backoffMs ?? 0,
    });
  }

  /** Claims and starts due node jobs up to the concurrency limit; serialized per workspace. */
  private pump(workspaceId: string): Promise<void> {
    const next = (this.pumping.get(workspaceId) ?? Promise.resolve()).then(() => this.pumpNow(workspaceId));
    this.pumping.set(workspaceId, next);
    void next.finally(() => {
      if (this.pumping.get(workspaceId) === next) this.pumping.delete(workspaceId);
    });
    return next;
  }

  /**
   * Claims what is due in `workspaceId` now: a worker calls it on a timer, since work
   * enqueued by another process (an API process, another worker's settle) does not wake this one.
   */
  poll(workspaceId: string): Promise<void> {
    return this.pump(workspaceId);
  }

  private async pumpNow(workspaceId: string): Promise<void> {
    if (this.suspended || !this.claims) return;
    try {
      const queue = await this.queue(workspaceId);
      while (!this.suspended && (this.active.get(workspaceId) ?? 0) < this.concurrency) {
        const job = await queue.claim(NODE_QUEUE, this.workerId, this.leaseMs);
        if (!job) break;
        this.active.set(workspaceId, (this.active.get(workspaceId) ?? 0) + 1);
        let holdsSlot = true;
        const freeSlot = () => {
          if (!holdsSlot) return;
          holdsSlot = false;
          this.active.set(workspaceId, (this.active.get(workspaceId) ?? 1) - 1);
          void this.pump(workspaceId);
        };
        void this.handleJob(workspaceId, queue, job.id, job.payload as { runId: string; key: string }, job.attempt, job.maxAttempts, freeSlot).finally(freeSlot);
      }
      await this.armTimer(workspaceId, queue);
    } catch (error) {
      if (!this.suspended) this.logger?.error({ err: error, workspaceId }, 'pipeline pump failed');
    }
  }

  /** Wakes the pump when the next delayed job (a retry's backoff, a lease) becomes due. */
  private async armTimer(workspaceId: string, queue: JobQueue): Promise<void> {
    const due = await queue.nextDueAt(NODE_QUEUE);
    const existing = this.timers.get(workspaceId);
    if (existing) clearTimeout(existing);
    this.timers.delete(workspaceId);
    if (due === null || this.suspended) return;
    const delay = Math.max(0, due - Date.now());
    if (delay === 0 && (this.active.get(workspaceId) ?? 0) >= this.concurrency) return;
    const timer = setTimeout(() => {
      this.timers.delete(workspaceId);
      void this.pump(workspaceId);
    }, Math.min(Math.max(delay, 5), 60_000));
    timer.unref();
    this.timers.set(workspaceId, timer);
  }

  // ---- one node --------------------------------------------------------------------------------

  private async handleJob(workspaceId: string, queue: JobQueue, jobId: string, payload: { runId: string; key: string }, claim: number, maxClaims: number, yieldSlot: () => void): Promise<void> {
    const { runId, key } = payload;
    const db = await this.db(workspaceId);
    // Hot path: the definition column (up to megabytes) is read once per run into the cache, never per node.
    const run = await findPipelineRunStatus(db, runId);
    const nodeRow = await findPipelineNode(db, runId, key);
    // A `pending` node's job is stale (left from before its run was cancelled and re-opened): it is queued again when its dependencies settle.
    if (!run || !nodeRow || run.status !== 'running' || TERMINAL.has(nodeRow.state) || nodeRow.state === 'pending') {
      await queue.complete(jobId, this.workerId);
      return;
    }
    const cache = await this.cache(db, run);
    const node = cache.byKey.get(key)!;
    // At most once (PIPE-1): an attempt still marked running was interrupted (a crash, a restart).
    if ((await interruptRunningAttempts(db, runId, key, nowIso())) > 0) {
      if (!node.idempotent && !SIDE_EFFECT_FREE_TYPES.has(node.type) && !RESUMABLE_TYPES.has(node.type)) {
        await queue.complete(jobId, this.workerId);
        await this.settle(workspaceId, runId, key, {
          state: 'failed',
          error: 'interrupted mid-flight by a server stop; the node has side effects and is not declared idempotent, so it is not run again (at most once)',
        });
        return;
      }
      // An idempotent node that keeps dying with the server is not restarted forever (PLAN-8: at most twice in all).
      if (node.idempotent && (await countInterruptedAttempts(db, runId, key)) >= MAX_INTERRUPTIONS) {
        await queue.complete(jobId, this.workerId);
        await this.settle(workspaceId, runId, key, { state: 'failed', error: 'the server stopped while this step was running, too many times' });
        return;
      }
    }
    // ORC-4: an orchestration over its cap holds the node — not started, not failed, its job done so
    // nothing spins — until the operator raises the cap (resumeRun) or cancels the run.
    const refusal = await this.askBudgetGates(workspaceId, runId, key, cache);
    if (refusal !== null) {
      // `queued` also for an attempt interrupted by a restart (its row still says running).
      const prefix = refusal.hold === 'budgetRoom' ? BUDGET_WAIT_PREFIX : HELD_PREFIX;
      await updatePipelineNode(db, runId, key, { state: 'queued', error: `${prefix}${refusal.reason}`.slice(0, 4_000) }, { notInStates: TERMINAL_NODE_STATES });
      await queue.complete(jobId, this.workerId);
      this.publish(workspaceId, runId);
      return;
    }
    const attempt = nodeRow.attempts + 1;
    const idempotencyKey = `${runId}:${key}:${attempt}`;
    const startedAt = nowIso();
    await beginPipelineNodeAttempt(db, { idempotencyKey, runId, key, attempt, startedAt, nodeStartedAt: nodeRow.startedAt ?? startedAt });
    this.publish(workspaceId, runId);
    const startedSource = this.observedSource(cache);
    if (startedSource) this.notify((observer) => observer.onNodeStarted({ workspaceId, pipelineRunId: runId, source: startedSource, nodeKey: key, nodeType: node.type }));

    const controller = new AbortController();
    let release!: () => void;
    const finished = new Promise<void>((resolve) => (release = resolve));
    const inflightKey = `${runId}:${key}`;
    this.inflight.set(inflightKey, { controller, finished });
    const heartbeat = setInterval(() => void queue.extend(jobId, this.workerId, this.leaseMs).catch(() => false), Math.max(1_000, this.leaseMs / 3));
    heartbeat.unref();
    const timeout = node.timeoutMs ? setTimeout(() => controller.abort(new Error(`timed out after ${node.timeoutMs} ms`)), node.timeoutMs) : null;
    timeout?.unref();
    try {
      const sources = await this.sources(db, runId, node, cache);
      const executor = this.executors.get(node.type);
      if (!executor) throw new PermanentNodeError(`no executor for node type ${node.type} on this server`);
      const work = executor({
          workspaceId,
          runId,
          node,
          attempt,
          idempotencyKey,
          signal: controller.signal,
          sources,
          recorded: { approvalId: nodeRow.approvalId, agentRunId: nodeRow.agentRunId },
          resolve: (text) => {
            const resolved = resolvePlaceholders(text, sources);
            if (!resolved.ok) throw new PermanentNodeError(`unresolved placeholder(s): ${resolved.unresolved.join(', ')}`);
            return resolved.text;
          },
          recordAgentRun: async (agentRunId) => {
            await updatePipelineNode(db, runId, key, { agentRunId });
            this.publish(workspaceId, runId);
          },
          yieldSlot,
          recordApproval: async (approvalId) => {
            await updatePipelineNode(db, runId, key, { approvalId });
            this.publish(workspaceId, runId);
          },
        });
      const output = this.settlesOnAbort.has(node.type) ? await work : await this.raceAbort(work, controller.signal);
      if (node.outputSchema) {
        const problems = checkAgainstSchema(output, node.outputSchema);
        if (problems.length > 0) throw new Error(`output does not match outputSchema: ${problems.slice(0, 10).join('; ')}`);
      }
      const serialized = JSON.stringify(output ?? null);
      await finishPipelineNodeAttempt(db, idempotencyKey, { state: 'succeeded', output: serialized, at: nowIso() });
      await queue.complete(jobId, this.workerId);
      await this.settle(workspaceId, runId, key, { state: 'done', output: serialized });
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : error;
      const message = reason instanceof Error ? reason.message : String(reason);
      const cancelled = reason instanceof NodeCancelled || reason instanceof CancelledNodeError;
      if (this.suspended && !cancelled) {
        // Shutdown: the attempt stays `running` and the job goes back; the next start decides (at most once).
        return;
      }
      await finishPipelineNodeAttempt(db, idempotencyKey, { state: 'failed', error: message.slice(0, 4_000), at: nowIso() });
      if (cancelled) {
        await queue.complete(jobId, this.workerId);
        const current = await findPipelineRunStatus(db, runId);
        if (current?.status === 'running') await this.settle(workspaceId, runId, key, { state: 'cancelled', error: message });
        else await updatePipelineNode(db, runId, key, { state: 'cancelled', error: message, endedAt: nowIso() });
        this.publish(workspaceId, runId);
        return;
      }
      const retry = !(error instanceof PermanentNodeError) && claim < maxClaims;
      const { retryAt } = await queue.fail(jobId, this.workerId, message, { retry });
      if (retryAt !== null) {
        await updatePipelineNode(db, runId, key, { state: 'queued', error: `attempt ${attempt} failed: ${message}; retrying` });
        this.publish(workspaceId, runId);
      } else {
        await this.settle(workspaceId, runId, key, { state: 'failed', error: message });
      }
    } finally {
      clearInterval(heartbeat);
      if (timeout) clearTimeout(timeout);
      this.inflight.delete(inflightKey);
      release();
    }
  }

  /** An executor that ignores its signal still cannot hold the node past a cancel or timeout. */
  private raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error as Error);
        },
      );
    });
  }

  /**
   * Outputs of the upstream nodes this node's text refers to (placeholders, `spaceFrom`), by key and
   * output key, plus the trigger payload. Only referenced nodes are read: a node deep in a
   * 10,000-node graph must not load every ancestor's output.
   */
  private async sources(db: Kysely<WorkspaceSchema>, runId: string, node: PipelineNode, cache: RunCache): Promise<Map<string, unknown>> {
    const sources = new Map<string, unknown>([[TRIGGER_SOURCE, cache.trigger]]);
    const names = new Set<string>();
    for (const [, text] of placeholderFields(node)) for (const ref of findPlaceholders(text)) names.add(ref.source);
    if (node.type === 'promptAgent' && node.spaceFrom) names.add(node.spaceFrom);
    names.delete(TRIGGER_SOURCE);
    const keys = new Set<string>();
    for (const name of names) {
      const owner = cache.byKey.has(name) ? name : cache.outputOwners.get(name);
      if (owner) keys.add(owner);
    }
    if (keys.size === 0) return sources;
    const rows = await listPipelineNodes(db, runId, { keys: [...keys], states: ['done'] });
    for (const row of rows) {
      if (row.output === null) continue;
      const value = JSON.parse(row.output) as unknown;
      sources.set(row.key, value);
      const declared = cache.byKey.get(row.key);
      if (declared?.outputKey) sources.set(declared.outputKey, value);
    }
    return sources;
  }

  // ---- settling and advancing ----------------------------------------------------------------

  /** Records a node's terminal state and moves its dependants on; serialized per run. */
  private settle(workspaceId: string, runId: string, key: string, outcome: { state: PipelineNodeState; error?: string; output?: string }): Promise<void> {
    const previous = this.settling.get(runId) ?? Promise.resolve();
    const next = previous.then(() => this.settleNow(workspaceId, runId, key, outcome)).catch((error: unknown) => this.logger?.error({ err: error, runId, key }, 'pipeline settle failed'));
    this.settling.set(runId, next);
    void next.finally(() => {
      if (this.settling.get(runId) === next) this.settling.delete(runId);
    });
    return next;
  }

  private async settleNow(workspaceId: string, runId: string, key: string, outcome: { state: PipelineNodeState; error?: string; output?: string }): Promise<void> {
    const db = await this.db(workspaceId);
    const run = await this.findRun(db, runId);
    const cache = await this.cache(db, run);
    const now = nowIso();
    const updated = await updatePipelineNode(
      db,
      runId,
      key,
      { state: outcome.state, error: outcome.error ?? null, endedAt: now, ...(outcome.output !== undefined ? { output: outcome.output } : {}) },
      { notInStates: TERMINAL_NODE_STATES },
    );
    if (updated > 0) {
      cache.remaining -= 1;
      const source = this.observedSource(cache);
      const node = cache.byKey.get(key);
      if (source && node && (outcome.state === 'done' || outcome.state === 'failed' || outcome.state === 'cancelled')) {
        const costUsd = await pipelineNodeAgentCost(db, runId, key);
        const state = outcome.state;
        const told = this.notify((observer) => observer.onNodeFinished({ workspaceId, pipelineRunId: runId, source, nodeKey: key, nodeType: node.type, state, costUsd }));
        // With budget gates, the node's cost must land before its dependants ask them (ORC-4), or a
        // dependant could start on a spend that does not count the node that just finished.
        if (this.budgetGates.length > 0) await told;
      }
    }
    if (run.status === 'running') {
      const queue = await this.queue(workspaceId);
      // Worklist: a blocked or skipped dependant settles its own dependants in turn.
      const work = [key];
      while (work.length > 0) {
        const settled = work.pop()!;
        for (const dependantKey of cache.dependants.get(settled) ?? []) {
          const dependant = cache.byKey.get(dependantKey)!;
          const rows = await listPipelineNodes(db, runId, { keys: [dependantKey, ...dependant.dependsOn] });
          const self = rows.find((row) => row.key === dependantKey);
          if (!self || self.state !== 'pending') continue;
          const deps = rows.filter((row) => row.key !== dependantKey);
          if (deps.some((row) => !TERMINAL.has(row.state))) continue;
          const verdict = this.readiness(cache, deps);
          if (verdict.state === 'queued') {
            await updatePipelineNode(db, runId, dependantKey, { state: 'queued' }, { inStates: ['pending'] });
            await this.enqueueNode(queue, runId, dependant, cache.generation);
          } else {
            const blocked = await updatePipelineNode(db, runId, dependantKey, { state: verdict.state, error: verdict.reason, endedAt: now }, { inStates: ['pending'] });
            if (blocked > 0) cache.remaining -= 1;
            work.push(dependantKey);
          }
        }
      }
    }
    await this.finishIfDone(workspaceId, runId);
    this.publish(workspaceId, runId);
    void this.pump(workspaceId);
  }

  /** Whether a node whose dependencies all settled runs, is skipped (a false condition) or blocked. */
  private readiness(cache: RunCache, deps: Array<{ key: string; state: string; output: string | null }>): { state: 'queued' | 'skipped' | 'blocked'; reason: string } {
    for (const dep of deps) {
      const declared = cache.byKey.get(dep.key)!;
      if ((dep.state === 'failed' && !declared.continueOnFail) || dep.state === 'cancelled' || dep.state === 'blocked') {
        return { state: 'blocked', reason: `blocked: ${dep.key} ${dep.state}` };
      }
    }
    for (const dep of deps) {
      if (dep.state === 'skipped') return { state: 'skipped', reason: `skipped: ${dep.key} was skipped` };
      const declared = cache.byKey.get(dep.key)!;
      if (declared.type === 'condition' && dep.state === 'done' && dep.output !== null) {
        const value = JSON.parse(dep.output) as { value?: unknown };
        if (value.value === false) return { state: 'skipped', reason: `skipped: condition ${dep.key} is false` };
      }
    }
    return { state: 'queued', reason: '' };
  }

  private async finishIfDone(workspaceId: string, runId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const run = await this.findRun(db, runId);
    if (run.status !== 'running') return;
    const cache = await this.cache(db, run);
    // The cached count only knows the nodes this process settled: on a shared queue another worker
    // may have settled the others (one draining after its SIGTERM, say), so the rows decide.
    if (cache.remaining > 0) cache.remaining = await countOpenPipelineNodes(db, runId);
    if (cache.remaining > 0) return;
    const rows = await listPipelineNodes(db, runId, { states: ['failed', 'blocked', 'cancelled'] });
    const fatal = rows.filter((row) => !(row.state === 'failed' && cache.byKey.get(row.key)?.continueOnFail));
    const status: PipelineRunStatus = fatal.length === 0 ? 'completed' : fatal.every((row) => row.state === 'cancelled' || row.state === 'blocked') && fatal.some((row) => row.state === 'cancelled') ? 'cancelled' : 'failed';
    const now = nowIso();
    await finishPipelineRunRow(db, runId, status, fatal.length === 0 ? null : `${fatal.length} node(s) did not finish: ${fatal.slice(0, 5).map((row) => `${row.key} ${row.state}`).join(', ')}`, now);
    this.caches.delete(runId);
    const source = this.observedSource(cache);
    const error = fatal.length === 0 ? null : `${fatal.length} node(s) did not finish`;
    if (source) this.notify((observer) => observer.onPipelineFinished({ workspaceId, pipelineRunId: runId, source, state: status, error }));
  }

  // ---- plumbing --------------------------------------------------------------------------------

  private async cache(db: Kysely<WorkspaceSchema>, ref: { id: string }): Promise<RunCache> {
    const cached = this.caches.get(ref.id);
    if (cached) return cached;
    const run = await loadPipelineRunPlan(db, ref.id);
    const definition = run.definition;
    const byKey = new Map(definition.nodes.map((node) => [node.key, node]));
    const dependants = new Map<string, string[]>();
    for (const node of definition.nodes) {
      for (const dependency of node.dependsOn) {
        const list = dependants.get(dependency) ?? [];
        list.push(node.key);
        dependants.set(dependency, list);
      }
    }
    const outputOwners = new Map(definition.nodes.filter((node) => node.outputKey).map((node) => [node.outputKey!, node.key]));
    const cache: RunCache = { definition, byKey, outputOwners, dependants, remaining: await countOpenPipelineNodes(db, run.id), trigger: run.triggerPayload, source: run.source, generation: run.generation };
    this.caches.set(run.id, cache);
    return cache;
  }

  private publish(workspaceId: string, runId: string): void {
    this.events.publish(workspaceId, 'pipelineRun.updated', { runId });
  }

  /** The job queue of a workspace (the embedded table, or pg-boss on PostgreSQL): what `/metrics` counts. */
  queueOf(workspaceId: string): Promise<JobQueue> {
    return this.queue(workspaceId);
  }

  private async queue(workspaceId: string): Promise<JobQueue> {
    let queue = this.queues.get(workspaceId);
    if (!queue) {
      queue = this.queueFor(workspaceId, await this.db(workspaceId));
      this.queues.set(workspaceId, queue);
    }
    return queue;
  }

  private async findRun(db: Kysely<WorkspaceSchema>, runId: string): Promise<{ id: string; status: PipelineRunStatus }> {
    const row = await findPipelineRunStatus(db, runId);
    if (!row) throw new NotFoundError('pipeline run', runId, 'runId');
    return row;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}

