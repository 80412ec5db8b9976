import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ModelMessage } from '../../llm/model-types.js';
import { AUTONOMY_LEVELS, MODES, type AutonomyLevel, type Mode } from '../../core/modes.js';
import { PG_BOSS_SCHEMA, type PgBossConnection, type PgBossJobQueue } from '../pipelines/pg-boss-job-queue.js';
import type { ClaimedJob } from '../pipelines/job-queue.js';
import type { RunAffinity } from './run-affinity.js';
import type { CarriedPart } from './record-run.js';
import { deleteRunDispatch, staleRunDispatches } from '../../store/repositories/run-dispatch-repository.js';
import { runsInConversation } from '../../store/repositories/run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/** pg-boss job states in which a job will still be (or is being) executed. */
const WAITING_OR_CLAIMED: ReadonlySet<string> = new Set(['created', 'retry', 'active']);

/** The shared queue of a workspace's agent runs; `runs-<process id>` is the queue of one process (affinity). */
export const RUN_QUEUE = 'runs';

/**
 * What a queued agent run needs to execute on whichever process claims it: plain data, no
 * callbacks. The run row itself is already recorded (`queued`) by the process that
 * accepted the message; the agent is read again by the executing process.
 */
export interface QueuedRun {
  runId: string;
  agentId: string;
  spaceId: string | null;
  conversationId: string | null;
  mode: Mode;
  autonomy: AutonomyLevel;
  prompt: string;
  history: ModelMessage[];
  /**
   * NF-SCALE, bursts: the history is the conversation before this message, read by the process that
   * starts the run (`history` is then empty): accepting the turn does not wait on reading it.
   */
  historyBefore?: { id: string; createdAt: string };
  repoPath: string | null;
  /** TOOL-3: the message whose images the run sends with its prompt (read from the database when it starts). */
  imagesOfMessage?: string;
  /** CTX-1 `/compact [focus]`. */
  compact?: { focus: string | null };
}

/**
 * A claimed job's payload, checked: anything with write access to the queue's tables could have put
 * it there, so a payload that is not exactly a queued run's shape executes nothing. The run itself is
 * then looked up in the claiming workspace's own schema, so a forged id of another workspace's run
 * resolves to nothing.
 */
export function parseQueuedRun(payload: unknown): QueuedRun | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const text = (value: unknown) => typeof value === 'string';
  const textOrNull = (value: unknown) => value === null || typeof value === 'string';
  if (!text(p.runId) || !text(p.agentId) || !text(p.prompt)) return null;
  // The mode and the autonomy decide the run's tool surface and gate: only the known values.
  if (!(MODES as readonly unknown[]).includes(p.mode) || !(AUTONOMY_LEVELS as readonly unknown[]).includes(p.autonomy)) return null;
  if (!textOrNull(p.spaceId) || !textOrNull(p.conversationId) || !textOrNull(p.repoPath) || !Array.isArray(p.history)) return null;
  if (p.imagesOfMessage !== undefined && !text(p.imagesOfMessage)) return null;
  if (p.historyBefore !== undefined && (typeof p.historyBefore !== 'object' || p.historyBefore === null || !text((p.historyBefore as { id?: unknown }).id) || !text((p.historyBefore as { createdAt?: unknown }).createdAt))) return null;
  if (p.compact !== undefined && (typeof p.compact !== 'object' || p.compact === null || !textOrNull((p.compact as { focus?: unknown }).focus))) return null;
  return p as unknown as QueuedRun;
}

/**
 * Executes a claimed run to its end; resolves when the run is recorded as ended (or was not `queued`).
 * `endCarries` is the job's completion, for the statement that ends the run to carry.
 */
export type ExecuteQueuedRun = (workspaceId: string, run: QueuedRun, endCarries?: CarriedPart) => Promise<void>;

/**
 * Agent runs through pg-boss (NF-SCALE): an API process enqueues (`enqueue`), every
 * process that executes work claims (`poll`) and runs the claimed run through the same
 * `RunExecutor` as a local run. Placement:
 * - a conversation whose last run executed on a live process is queued on that process's own queue
 *   (`runs-<process id>`), so its checkout is reused; otherwise on the shared `runs` queue;
 * - a process claims its own queue first, then the shared one, then the queues of dead processes
 *   (their conversations move to whoever claims them, with a fresh checkout there);
 * - the lease is renewed while the run executes; a run is executed at most once: a claim that finds
 *   its run no longer `queued` (a dead worker had started it) completes the job and runs nothing —
 *   the dead worker's run is marked dead by the orphan sweep (`RunAffinity.takeOrphans`).
 */
export class RunQueue {
  private readonly queues = new Map<string, PgBossJobQueue>();
  private readonly executing = new Set<Promise<void>>();
  private stopped = false;
  /** Workspaces whose claim loop is running now ({@link claimInto}). */
  private readonly claiming = new Set<string>();
  /** Workspaces whose last claim loop stopped for want of room, with what it claimed from: {@link refill}. */
  private readonly refillable = new Map<string, { order: readonly string[]; execute: ExecuteQueuedRun }>();

  constructor(
    private readonly connection: PgBossConnection,
    private readonly affinity: RunAffinity,
    private readonly options: {
      processId: string;
      leaseMs: number;
      maxConcurrent: number;
      /** How long a run may wait on a live process's own queue before another process may take it. */
      stealAfterMs: number;
      logger: Logger;
    },
  ) {}

  private queueOf(workspaceId: string): PgBossJobQueue {
    let queue = this.queues.get(workspaceId);
    if (!queue) this.queues.set(workspaceId, (queue = this.connection.queueFor(workspaceId)));
    return queue;
  }

  /** Queues a recorded run for the process its conversation sticks to, or for anyone. */
  async enqueue(workspaceId: string, run: QueuedRun, dedupeKey = run.runId): Promise<void> {
    const owner = run.conversationId ? await this.affinity.affinityOf(workspaceId, run.conversationId) : null;
    await this.queueOf(workspaceId).enqueue({ queue: owner ? `${RUN_QUEUE}-${owner}` : RUN_QUEUE, payload: run, dedupeKey });
  }

  /**
   * The sweep for runs whose enqueue never happened (the accepting process died between recording
   * the run and enqueueing it): dispatch rows older than `graceMs` whose run is still `queued` and has
   * no job waiting or claimed are enqueued now; every row it looked at is then deleted. A run whose
   * only jobs have ended (completed while the run stayed `queued`: its claimer gave up) gets a job
   * with a new id — a job id is derived from its key, and pg-boss keeps ended jobs under their id.
   * Two jobs for one run never both execute it (`RunAffinity.claimPart`, in each job's lease). Returns how many it enqueued.
   */
  async redispatch(workspaceId: string, db: Kysely<WorkspaceSchema>, graceMs: number): Promise<number> {
    let enqueued = 0;
    for (const row of await staleRunDispatches(db, Date.now() - graceMs, 100)) {
      const run = parseQueuedRun(row.payload);
      if (row.runState === 'queued' && run && run.runId === row.runId) {
        const states = await this.jobStates(workspaceId, row.runId);
        if (!states.some((state) => WAITING_OR_CLAIMED.has(state))) {
          await this.enqueue(workspaceId, run, states.length === 0 ? run.runId : `${run.runId}#${states.length}`);
          this.options.logger.warn({ workspaceId, runId: run.runId }, 'a queued run whose enqueue never happened was enqueued by the sweep');
          enqueued += 1;
        }
      }
      await deleteRunDispatch(db, row.runId);
    }
    return enqueued;
  }

  /**
   * Forgets processes dead for longer than `afterMs` (`RunAffinity.prune`) and deletes the private
   * runs queues (`<workspace>__runs-<process id>`, every workspace) of processes no longer known once
   * they hold no job still to execute — a queue is a pg-boss partition table, so queues of dead
   * processes would otherwise pile up. Returns the queues deleted.
   */
  async prune(afterMs: number): Promise<string[]> {
    await this.affinity.prune(afterMs);
    const marker = `__${RUN_QUEUE}-`;
    const queues = await this.connection.sql.query<{ name: string }>(`select name from ${PG_BOSS_SCHEMA}.queue where strpos(name, $1) > 0`, [marker]);
    if (queues.rows.length === 0) return [];
    const known = await this.affinity.knownProcesses();
    const deleted: string[] = [];
    for (const { name } of queues.rows) {
      if (known.has(name.slice(name.lastIndexOf(marker) + marker.length))) continue;
      if (await this.connection.deleteQueueIfIdle(name)) deleted.push(name);
    }
    return deleted;
  }

  /** The pg-boss states of every job that carries `runId`, on the shared and the per-process runs queues. */
  private async jobStates(workspaceId: string, runId: string): Promise<string[]> {
    const result = await this.connection.sql.query<{ state: string }>(
      `select state from ${PG_BOSS_SCHEMA}.job where starts_with(name, $1) and data->'payload'->>'runId' = $2`,
      [`${workspaceId}__${RUN_QUEUE}`, runId],
    );
    return result.rows.map((row) => row.state);
  }

  /** Shutdown: claim nothing more; a run claimed but not started yet goes back to the queue. */
  stop(): void {
    this.stopped = true;
  }

  /** Runs this process is executing from the queue right now. */
  get inFlight(): number {
    return this.executing.size;
  }

  /**
   * Claims and starts due runs of `workspaceId` while there is room; returns how many it started.
   * With room to spare, it first moves runs that waited too long on a live process's own queue to the
   * shared one ({@link stealWaiting}); they are claimed from there, by this process or another.
   */
  async poll(workspaceId: string, execute: ExecuteQueuedRun, db: Kysely<WorkspaceSchema>): Promise<number> {
    const { order, liveOthers } = await this.claimOrder(workspaceId);
    if (!this.stopped && this.executing.size < this.options.maxConcurrent && liveOthers.length > 0) await this.stealWaiting(workspaceId, db, liveOthers);
    // The run's ownership is claimed in its job's claim statement (`claimPart`): the affinity tables exist first.
    await this.affinity.start();
    return this.claimInto(workspaceId, order, execute);
  }

  /**
   * Claims from `order`'s queues, in order, while there is room. A loop that stops because the room
   * ran out (a job may still wait) leaves the workspace to {@link refill}: the next run to end here
   * claims the next job at once. Without that, a worker whose runs all ended before its next poll
   * waited up to a poll period with free room and jobs waiting — and whether it did depended only on
   * whether its claims were quicker than its runs. One loop per workspace at a time.
   */
  private async claimInto(workspaceId: string, order: readonly string[], execute: ExecuteQueuedRun): Promise<number> {
    if (this.claiming.has(workspaceId)) return 0;
    this.claiming.add(workspaceId);
    this.refillable.delete(workspaceId);
    let started = 0;
    try {
      const { processId, leaseMs } = this.options;
      for (const queue of order) {
        for (;;) {
          if (this.stopped) return started;
          if (this.executing.size >= this.options.maxConcurrent) {
            this.refillable.set(workspaceId, { order, execute });
            return started;
          }
          const claimed = await this.queueOf(workspaceId).claimWith(queue, processId, leaseMs, this.affinity.claimPart(workspaceId, processId));
          if (!claimed) break;
          started += 1;
          const owned = await this.takenWithJob(workspaceId, claimed.job, claimed.answer);
          const running = this.execute(workspaceId, claimed.job, owned, execute);
          this.executing.add(running);
          void running.finally(() => {
            this.executing.delete(running);
            this.refill();
          });
        }
      }
      return started;
    } finally {
      this.claiming.delete(workspaceId);
    }
  }

  /** A run ended here: the room goes to a workspace whose last claim loop stopped for want of room. */
  private refill(): void {
    if (this.stopped || this.executing.size >= this.options.maxConcurrent) return;
    const [next] = this.refillable;
    if (!next) return;
    const [workspaceId, { order, execute }] = next;
    this.claimInto(workspaceId, order, execute).catch((error: unknown) => this.options.logger.error({ err: error, workspaceId }, 'claiming the next queued run failed; the next poll claims it'));
  }

  /**
   * Whether the claim took the job's run for this process: the owner row the claim's statement wrote
   * from the stored payload is the run this process parsed from it. A row written for a payload that
   * is not a queued run's (anything with write access to the queue's tables could have put it
   * there) is deleted again before this process claims anything more: it owns nothing this process will execute.
   */
  private async takenWithJob(workspaceId: string, job: ClaimedJob, answer: unknown): Promise<boolean> {
    const run = parseQueuedRun(job.payload);
    if (run !== null && answer === run.runId) return true;
    if (typeof answer === 'string') {
      await this.affinity.disown(workspaceId, answer).catch((error: unknown) => this.options.logger.error({ err: error, workspaceId, jobId: job.id }, 'could not release the ownership a malformed runs-queue job took'));
    }
    return false;
  }

  /** Waits for the runs this process claimed (they end when the executor cancels them on close). */
  async settle(): Promise<void> {
    await Promise.all([...this.executing]);
  }

  /**
   * This process's own queue, the shared one, then dead processes' queues — only queues that exist in
   * this workspace: claiming creates a queue in pg-boss (a table), so per-process queues are made only
   * by an enqueue for a conversation that sticks to that process.
   */
  private async claimOrder(workspaceId: string): Promise<{ order: string[]; liveOthers: string[] }> {
    const prefix = `${workspaceId}__${RUN_QUEUE}-`;
    const existing = await this.connection.sql.query<{ name: string }>(`select name from ${PG_BOSS_SCHEMA}.queue where starts_with(name, $1)`, [prefix]);
    const owners = existing.rows.map((row) => row.name.slice(prefix.length));
    const own = this.options.processId;
    const order = [...(owners.includes(own) ? [`${RUN_QUEUE}-${own}`] : []), RUN_QUEUE];
    const liveOthers: string[] = [];
    if (owners.some((owner) => owner !== own)) {
      // Dead, or dead so long its row was pruned: its queue is anyone's until it is empty and deleted.
      const alive = await this.affinity.liveProcesses();
      for (const owner of owners) {
        if (owner === own) continue;
        if (alive.has(owner)) liveOthers.push(owner);
        else order.push(`${RUN_QUEUE}-${owner}`);
      }
    }
    return { order, liveOthers };
  }

  /**
   * Work stealing: a live process claims its own queue at every poll while it has room, so a run
   * still waiting there after `stealAfterMs` waits because that process is saturated (at its
   * maximum of concurrent runs) or stuck. Such a run is moved to the shared queue (one transaction:
   * exactly one of the two jobs can be claimed) and executes wherever there is room, with a fresh
   * checkout there — as after a death; the conversation then sticks to its new process. A run whose
   * conversation has a run in progress is left where it is: its turns must not run side by side in
   * two checkouts.
   */
  private async stealWaiting(workspaceId: string, db: Kysely<WorkspaceSchema>, liveOthers: readonly string[]): Promise<void> {
    const queue = this.queueOf(workspaceId);
    for (const owner of liveOthers) {
      const from = `${RUN_QUEUE}-${owner}`;
      for (const job of await queue.waitingSince(from, this.options.stealAfterMs, this.options.maxConcurrent - this.executing.size)) {
        const run = parseQueuedRun(job.payload);
        if (run?.conversationId && (await runsInConversation(db, run.conversationId)).some((other) => other.state === 'running')) continue;
        if (await queue.move(job.id, from, RUN_QUEUE)) this.options.logger.info({ workspaceId, runId: run?.runId, from: owner }, 'a run waiting on a saturated process moved to the shared queue');
      }
    }
  }

  /**
   * `owned`: this process took the job's run with the job's lease ({@link RunAffinity.claimPart}); the
   * owner row then goes with the job's completion, in the same statement. A job whose run another
   * claimer holds (two jobs for one run) executes nothing and leaves that claimer's row alone.
   */
  private async execute(workspaceId: string, job: ClaimedJob, owned: boolean, execute: ExecuteQueuedRun): Promise<void> {
    const queue = this.queueOf(workspaceId);
    const { processId, leaseMs } = this.options;
    const run = parseQueuedRun(job.payload);
    const ownedRun = owned && run ? run : null;
    const disown = async () => {
      if (ownedRun) await this.affinity.disown(workspaceId, ownedRun.runId).catch((error: unknown) => this.options.logger.error({ err: error, workspaceId, runId: ownedRun.runId }, 'could not release the ownership of a queued run'));
    };
    if (this.stopped) {
      // Disowned before the job goes back: a claimer of the released job must not find this owner row.
      await disown();
      await queue.release(processId).catch(() => 0);
      return;
    }
    const heartbeat = setInterval(() => void queue.extend(job.id, processId, leaseMs).catch(() => false), Math.max(500, leaseMs / 3));
    // NF-SCALE: the job's completion (with the owner row's delete) rides in the statement that ends the
    // run, a round trip less per run; every other exit (the run not started, an error before its end,
    // the end written without it) completes the job below, as before.
    let carried = false;
    try {
      if (!run) this.options.logger.error({ workspaceId, jobId: job.id }, 'a runs-queue job that is not a queued run was dropped');
      else if (ownedRun) {
        const part = queue.completionPart(job.id, processId, this.affinity.disownPart(workspaceId, ownedRun.runId));
        await execute(workspaceId, ownedRun, { part, carried: () => (carried = true) });
      }
      else this.options.logger.info({ workspaceId, runId: run.runId }, 'a queued run another claimer holds was not executed again');
    } catch (error) {
      this.options.logger.error({ err: error, workspaceId, jobId: job.id }, 'a queued run could not be executed');
    } finally {
      clearInterval(heartbeat);
      // Runs are never retried by the queue (side effects): done or failed, the job is finished, and
      // the run's owner row is deleted in the same statement (even when the lease was lost meanwhile).
      // When that statement fails, the row is deleted on its own: else this live process would keep it
      // until it dies, and the orphan sweep would then take a row of an ended run (which it skips).
      if (!carried) {
        const sent = await queue.complete(job.id, processId, ownedRun ? this.affinity.disownPart(workspaceId, ownedRun.runId) : undefined).then(
          () => true,
          () => false,
        );
        if (!sent) await disown();
      }
    }
  }
}
