import { availableParallelism } from 'node:os';

/**
 * NF-SCALE, bursts: how many runs one process starts at once by default. Starting a run (its
 * settings, checkout, sandbox and prompt) is CPU work on the process's one event loop; a few per
 * core keep the cores busy while a burst of accepted turns is still being answered.
 */
export function defaultRunStartConcurrency(): number {
  return Math.max(2, availableParallelism() * 2);
}

interface WaitingStart {
  key: string;
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
 * - Accepting comes first: while a turn is being accepted (`whileAccepting`), one start at a time
 *   goes on — starts never stop, but a burst's POSTs do not share the event loop with a full set of
 *   preparing runs (profiled: preparing took a quarter of a burst's CPU at the full bound).
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

  constructor(private readonly concurrency: number) {
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

  /** Accepts a turn (`accept`) with the starts held to one at a time meanwhile. */
  async whileAccepting<T>(accept: () => Promise<T>): Promise<T> {
    this.accepting += 1;
    try {
      return await accept();
    } finally {
      this.accepting -= 1;
      this.pump();
    }
  }

  private pump(): void {
    const limit = this.accepting > 0 ? 1 : this.concurrency;
    for (let index = 0; index < this.waiting.length && this.inProgress < limit; ) {
      const next = this.waiting[index]!;
      if (this.startingKeys.has(next.key)) {
        index += 1;
        continue;
      }
      this.waiting.splice(index, 1);
      this.inProgress += 1;
      this.startingKeys.add(next.key);
      next.begin();
    }
  }
}
