import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../../src/services/control-center.js';
import type { WorkspaceEvent } from '../../../src/services/event-bus.js';
import { LatencyHistogram } from '../../../src/services/cluster/latency-histogram.js';
import { freshTestDatabase } from '../../support/test-database.js';
import { makeDataRoot } from '../../support/test-server.js';

/**
 * WS-3, NF-SCALE: two control centers — two processes' worth of pools and listening
 * connections — on one PostgreSQL database. What one publishes reaches the other's subscribers in
 * commit order, exactly once, also across a lost listening connection.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
const roots: string[] = [];
let a: ControlCenter;
let b: ControlCenter;
let workspaceId: string;

beforeAll(async () => {
  database = await freshTestDatabase();
  roots.push(await makeDataRoot(), await makeDataRoot());
  a = await ControlCenter.open({ dataRoot: roots[0]!, database: database.url });
  b = await ControlCenter.open({ dataRoot: roots[1]!, database: database.url });
  workspaceId = (await a.workspaces.create('Shared')).id;
  await a.seeding.settle();
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
  await database?.drop();
});

/** Polls a condition on in-memory state until it holds. */
async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const collect = (center: ControlCenter, after?: number) => {
  const seen: WorkspaceEvent[] = [];
  const stop = center.events.subscribe(workspaceId, (event) => seen.push(event), after);
  return { seen, stop };
};
const marks = (events: WorkspaceEvent[]) => events.filter((event) => event.type === 'space.updated').map((event) => (event.data as { name: string }).name);
const publishMark = (center: ControlCenter, name: string) => center.events.publish(workspaceId, 'space.updated', { id: 'sp_x', name } as never);

describe('live events across processes on PostgreSQL', () => {
  it('each process delivers every committed event once, in the same id order; in-process reactions see only their own', async () => {
    await Promise.all([a.events.ready(workspaceId), b.events.ready(workspaceId)]);
    const onA = collect(a);
    const onB = collect(b);
    const reactionsOnB: string[] = [];
    const stopReactions = b.events.subscribeAll((event) => reactionsOnB.push(event.type));
    for (let index = 0; index < 20; index += 1) publishMark(index % 2 === 0 ? a : b, `m${index}`);
    await waitFor(() => marks(onA.seen).length === 20 && marks(onB.seen).length === 20, 15_000);
    expect(onA.seen.map((event) => event.sequence)).toEqual(onB.seen.map((event) => event.sequence));
    const sequences = onB.seen.map((event) => event.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    // Each process's own events keep its publish order.
    expect(marks(onB.seen).filter((name) => Number(name.slice(1)) % 2 === 0)).toEqual(Array.from({ length: 10 }, (_, index) => `m${index * 2}`));
    expect(reactionsOnB).toHaveLength(10);
    stopReactions();
    onA.stop();
    onB.stop();
  });

  it('a subscriber with a Last-Event-ID older than the local buffer is replayed from the table, then goes live without a duplicate', async () => {
    const fresh = collect(b, 0);
    await waitFor(() => marks(fresh.seen).length === 20, 10_000);
    publishMark(a, 'after-replay');
    await waitFor(() => marks(fresh.seen).includes('after-replay'), 10_000);
    const sequences = fresh.seen.map((event) => event.sequence);
    expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences[0]).toBe(1);
    fresh.stop();
  });

  it('a lost listening connection reconnects and catches up on what was committed meanwhile', async () => {
    const onB = collect(b);
    await b.cluster!.dropListenerForTest();
    for (let index = 0; index < 5; index += 1) publishMark(a, `while-down-${index}`);
    await waitFor(() => marks(onB.seen).length === 5, 15_000);
    expect(marks(onB.seen)).toEqual(['while-down-0', 'while-down-1', 'while-down-2', 'while-down-3', 'while-down-4']);
    onB.stop();
  });

  it('an event whose live-state row cannot be written is still committed and delivered, and the rows of the events beside it are written', async () => {
    const onB = collect(b);
    // An agent id the live-state table refuses (its key may not be null): that row fails, nothing else does.
    a.events.publish(workspaceId, 'presence.updated', { agentId: null, status: 'thinking', runId: null, since: new Date().toISOString() } as never);
    a.events.publish(workspaceId, 'presence.updated', { agentId: 'ag_written', status: 'idle', runId: null, since: new Date().toISOString() });
    publishMark(a, 'after-a-refused-row');
    await waitFor(() => marks(onB.seen).includes('after-a-refused-row'), 10_000);
    expect(onB.seen.filter((event) => event.type === 'presence.updated')).toHaveLength(2);
    // Committed with the events: read once they are delivered, no waiting.
    expect((await b.liveViews.agentPresence(workspaceId)).map((presence) => presence.agentId)).toContain('ag_written');
    onB.stop();
  });
});

describe('the event-lag histogram', () => {
  it('counts every observation in its bucket and reads p50/p99 from the buckets', () => {
    const histogram = new LatencyHistogram([0.01, 0.1, 1]);
    expect(Number.isNaN(histogram.quantile(0.5))).toBe(true);
    for (let index = 0; index < 98; index += 1) histogram.observe(0.005);
    histogram.observe(0.05);
    histogram.observe(3);
    expect(histogram.count).toBe(100);
    expect(histogram.cumulative()).toEqual([
      { le: '0.01', count: 98 },
      { le: '0.1', count: 99 },
      { le: '1', count: 99 },
      { le: '+Inf', count: 100 },
    ]);
    expect(histogram.quantile(0.5)).toBeLessThanOrEqual(0.01);
    expect(histogram.quantile(0.99)).toBeGreaterThan(0.01);
    expect(histogram.quantile(0.99)).toBeLessThanOrEqual(0.1);
  });
});

