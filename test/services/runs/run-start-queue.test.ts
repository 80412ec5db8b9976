import { describe, expect, it } from 'vitest';
import { RunStartQueue } from '../../../src/services/runs/run-start-queue.js';

/** A start that is under way until `finish()`: what RunStartQueue bounds. */
function heldStart(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    task: async () => {
      log.push(name);
      await done;
    },
    finish,
  };
}

/** Lets every promise callback that is ready run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** NF-SCALE, bursts: the bound, the order per conversation, and acceptance first. */
describe('RunStartQueue', () => {
  it('starts at most its bound at once, FIFO, and a conversation\'s next turn only after the previous one started', async () => {
    const queue = new RunStartQueue(2);
    const log: string[] = [];
    const starts = [heldStart(log, 'a1'), heldStart(log, 'a2'), heldStart(log, 'b1'), heldStart(log, 'c1')];
    const keys = ['a', 'a', 'b', 'c'];
    const ended = starts.map((start, index) => queue.schedule(keys[index]!, start.task));
    await settle();
    // a2 waits behind a1 (same conversation): b1 takes the second slot.
    expect(log).toEqual(['a1', 'b1']);
    expect(queue.depth).toBe(2);
    starts[0]!.finish();
    await settle();
    expect(log).toEqual(['a1', 'b1', 'a2']);
    for (const start of starts) start.finish();
    await Promise.all(ended);
    expect(log).toEqual(['a1', 'b1', 'a2', 'c1']);
    expect(queue.depth).toBe(0);
  });

  it('a start that says it has started frees its slot before it ends', async () => {
    const queue = new RunStartQueue(1);
    const log: string[] = [];
    let endFirst!: () => void;
    const first = queue.schedule('a', async (started) => {
      log.push('first');
      started();
      await new Promise<void>((resolve) => (endFirst = resolve));
    });
    const second = queue.schedule('b', async () => void log.push('second'));
    await second;
    expect(log).toEqual(['first', 'second']);
    endFirst();
    await first;
  });

  it('while turns are being accepted no start begins; the full bound comes back after', async () => {
    const queue = new RunStartQueue(3, 60_000);
    const log: string[] = [];
    let accepted!: () => void;
    const accepting = queue.whileAccepting(() => new Promise<void>((resolve) => (accepted = resolve)));
    const starts = ['x', 'y', 'z'].map((name) => heldStart(log, name));
    const ended = starts.map((start, index) => queue.schedule(`conversation ${index}`, start.task));
    await settle();
    expect(log).toEqual([]);
    accepted();
    await accepting;
    await expect.poll(() => log).toEqual(['x', 'y', 'z']);
    for (const start of starts) start.finish();
    await Promise.all(ended);
  });

  it('the gap between two acceptances of a burst lets no start in: the full bound comes back once acceptances have been quiet a while', async () => {
    const queue = new RunStartQueue(3, 60_000, 1_000);
    const log: string[] = [];
    const starts = ['x', 'y'].map((name) => heldStart(log, name));
    const ended = starts.map((start, index) => queue.schedule(`conversation ${index}`, start.task));
    // Queued before any acceptance: they start at once.
    await expect.poll(() => log).toEqual(['x', 'y']);
    // One turn accepted; the next POST of the burst is still being read.
    await queue.whileAccepting(async () => undefined);
    const later = heldStart(log, 'z');
    const endedLater = queue.schedule('conversation 2', later.task);
    await settle();
    expect(log).toEqual(['x', 'y']);
    // No acceptance since: after the quiet interval the start goes on.
    await expect.poll(() => log, { timeout: 30_000 }).toEqual(['x', 'y', 'z']);
    for (const start of [...starts, later]) start.finish();
    await Promise.all([...ended, endedLater]);
  });

  it('during a long acceptance starts still go on, one per interval', async () => {
    const queue = new RunStartQueue(3, 50);
    const log: string[] = [];
    let accepted!: () => void;
    const accepting = queue.whileAccepting(() => new Promise<void>((resolve) => (accepted = resolve)));
    const starts = ['x', 'y'].map((name) => heldStart(log, name));
    const ended = starts.map((start, index) => queue.schedule(`conversation ${index}`, start.task));
    await expect.poll(() => log).toEqual(['x', 'y']);
    accepted();
    await accepting;
    for (const start of starts) start.finish();
    await Promise.all(ended);
  });

  it('refuses a bound that is not a whole number of at least 1', () => {
    expect(() => new RunStartQueue(0)).toThrow(RangeError);
    expect(() => new RunStartQueue(1.5)).toThrow(RangeError);
  });
});
