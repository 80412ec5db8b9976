import { availableParallelism } from 'node:os';

/**
 * NF-SCALE, bursts: how many runs one process starts at once by default. Starting a run (its
 * settings, checkout, sandbox and prompt) is CPU work on the process's one event loop; a few per
 * core keep the cores busy while a burst of accepted turns is still being answered.
 */
export function defaultRunStartConcurrency(): number {
  return Math.max(2, availableParallelism() * 2);
}

/** While turns are being accepted, one start per this many ms at most. */
const ACCEPT_FIRST_MS = 1_000;

/**
 * How long after the last acceptance ended turns still count as being accepted. A burst's POSTs are
 * not in their handlers back to back: between two, the server reads and parses the next request,
 * and a queue that went to its full bound in every such gap started runs all through the burst
 * (profiled: 39 % of the embedded server's CPU while 1,000 turns were being accepted went to
 * starting and executing runs). A turn posted alone starts this much later.
 */
const ACCEPT_QUIET_MS = 50;

interface WaitingStart {
  key: string;
  since: number;
  begin: () => void;
}

/**
 * The starts of accepted runs, bounded (NF-SCALE, bursts). Accepting a turn records it `queued`
 * and answers at once; the run's start goes through here, so a burst of 1,000 turns never has
 * 1,000 runs preparing on the event loop that must also answer the next POST.
 * - At most `concurrency` starts are in progress at once; a start ends when its task says the run
 *   has started (handed to its transport) or when the task settles, whichever comes first — a run
 *   that waits on a person afterwards holds no slot.
 * - FIFO, and per key (a conversation): a turn starts only after every earlier turn of its
 *   conversation has started, so turns keep the order they were posted in.
 * - Accepting comes first: while turns are being accepted (`whileAccepting`, and for
 *   `acceptQuietMs` after the last one), one start begins per `acceptFirstMs` at most (never none: a long burst still starts runs), so a burst's POSTs do
 *   not share the event loop with runs preparing and talking to their models (profiled: with
 *   starts only bounded, or one at a time, the runs started during a burst took most of its CPU).
 *   Between ordinary posts (a few ms each) starts go on at the full bound.
 * Nothing here is durable: a queued run a crash leaves behind is marked dead on the next start
 * (`RunService.markOrphansDead`), like a running one.
 */
export class RunStartQueue {
  private readonly waiting: WaitingStart[] = [];
  /** Keys with a start in progress: their next start waits. */
  private readonly startingKeys = new Set<string>();
  private inProgress = 0;
  /** Turns being accepted now: while there are any, starts go on one at a time. */
  private accepting = 0;
  /** Wakes the queue when its oldest start has waited long enough behind acceptances. */
  private wake: NodeJS.Timeout | null = null;
  /** When `wake` fires (epoch ms). */
  private wakeAt = 0;
  /** When the last start began (0: none yet). */
  private lastBegun = 0;
  /** When the last acceptance ended (0: none yet). */
  private lastAccepted = 0;

  constructor(
    private readonly concurrency: number,
    private readonly acceptFirstMs = ACCEPT_FIRST_MS,
    private readonly acceptQuietMs = ACCEPT_QUIET_MS,
  ) {
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError(`run start concurrency must be a whole number ≥ 1, got ${concurrency}`);
  }

  /** Starts waiting to be begun (tests and /metrics read it). */
  get depth(): number {
    return this.waiting.length;
  }

  /**
   * Runs `task` once a slot is free and no earlier start of `key` is in progress; resolves or rejects
   * with the task. The task calls `started()` when the run is under way; its slot is freed then (or
   * when it settles).
   */
  schedule<T>(key: string, task: (started: () => void) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        key,
        since: Date.now(),
        begin: () => {
          let released = false;
          const started = () => {
            if (released) return;
            released = true;
            this.inProgress -= 1;
            this.startingKeys.delete(key);
            this.pump();
          };
          let result: Promise<T>;
          try {
            result = task(started);
          } catch (error) {
            result = Promise.reject(error);
          }
          result.then(resolve, reject).finally(started);
        },
      });
      this.pump();
    });
  }

  /** Accepts a turn (`accept`); starts wait meanwhile (see the class comment). */
  async whileAccepting<T>(accept: () => Promise<T>): Promise<T> {
    this.accepting += 1;
    try {
      return await accept();
    } finally {
      this.accepting -= 1;
      this.lastAccepted = Date.now();
      this.pump();
    }
  }

  private pump(): void {
    const quietFor = this.acceptQuietMs - (Date.now() - this.lastAccepted);
    const accepting = this.accepting > 0 || quietFor > 0;
    const limit = !accepting ? this.concurrency : this.sinceLastChance() >= this.acceptFirstMs ? Math.min(this.inProgress + 1, this.concurrency) : 0;
    for (let index = 0; index < this.waiting.length && this.inProgress < limit; ) {
      const next = this.waiting[index]!;
      if (this.startingKeys.has(next.key)) {
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      this.lastBegun = Date.now();
      this.inProgress += 1;
      this.startingKeys.add(next.key);
      next.begin();
    }
    // Held behind acceptances: look again when the next start may begin, or when the acceptances
    // have been quiet long enough for the full bound.
    if (accepting && this.waiting.length > 0) {
      const nextChance = Math.max(0, this.acceptFirstMs - this.sinceLastChance());
      const due = Date.now() + (this.accepting > 0 ? nextChance : Math.min(nextChance, Math.max(0, quietFor)));
      // An acceptance that ended brings the look forward (to the end of the quiet interval).
      if (this.wake && due < this.wakeAt) {
        clearTimeout(this.wake);
        this.wake = null;
      }
      if (!this.wake) {
        this.wakeAt = due;
        this.wake = setTimeout(() => {
          this.wake = null;
          this.pump();
        }, due - Date.now());
        this.wake.unref();
      }
    }
  }

  /** How long the oldest start has waited, counted from the last start that began if that is later. */
  private sinceLastChance(): number {
    const oldest = this.waiting[0];
    return oldest ? Date.now() - Math.max(oldest.since, this.lastBegun) : 0;
  }
}
