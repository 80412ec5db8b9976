import type { Logger } from 'pino';
import type { Run } from '../../schemas/run.js';

const ENDED: ReadonlySet<Run['state']> = new Set(['completed', 'failed', 'cancelled']);

interface FollowUp {
  text: string;
  start: () => Promise<unknown>;
}

/**
 * Messages that wait for a turn to end (HAR-5): sent while a turn whose runtime cannot be steered was
 * going, each starts the next turn once that one has ended, one after the other in the order sent —
 * so a message never starts a turn beside a going one, and its answer comes after that turn's answer.
 *
 * The wait is held by the process that took the message, which learns of the end from the run's own
 * `run.updated` event (published here or, on a shared database, by the process that ran it).
 */
export class FollowUpTurns {
  private readonly waiting = new Map<string, FollowUp[]>();

  constructor(private readonly deps: { findRun(workspaceId: string, runId: string): Promise<Run | null>; logger: Logger }) {}

  /** Queues `start` behind the run; a run that has already ended (a race with the message) starts it now. */
  async startAfter(workspaceId: string, runId: string, text: string, start: () => Promise<unknown>): Promise<void> {
    const key = `${workspaceId}/${runId}`;
    const queue = this.waiting.get(key) ?? [];
    queue.push({ text, start });
    this.waiting.set(key, queue);
    const run = await this.deps.findRun(workspaceId, runId);
    if (!run || ENDED.has(run.state)) this.release(key);
  }

  /** Every run.updated event, wherever it was published: an ended run releases the messages waiting for it. */
  runUpdated(workspaceId: string, run: Run): void {
    if (ENDED.has(run.state)) this.release(`${workspaceId}/${run.id}`);
  }

  private release(key: string): void {
    const queue = this.waiting.get(key);
    if (!queue) return;
    this.waiting.delete(key);
    // One after the other: the second message finds the first one's turn going and goes to it (or waits for it).
    void (async () => {
      for (const followUp of queue) {
        try {
          await followUp.start();
        } catch (error) {
          this.deps.logger.error({ err: error }, 'a message that waited for a turn to end could not start its turn');
        }
      }
    })();
  }
}
