import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import type { Kysely, KyselyPlugin } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlCenter } from '../../../src/services/control-center.js';
import { EventBus, type WorkspaceEvent } from '../../../src/services/event-bus.js';
import { LatencyHistogram } from '../../../src/services/cluster/latency-histogram.js';
import { PostgresEventJournal } from '../../../src/services/cluster/postgres-event-journal.js';
import type { WorkspaceSchema } from '../../../src/store/workspace-schema.js';
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

/** The SQL of every statement a store handle sends (begin and commit excepted: the driver sends those itself). */
function recording(db: Kysely<WorkspaceSchema>): { db: Kysely<WorkspaceSchema>; statements: string[] } {
  const statements: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      statements.push(args.node.kind === 'RawNode' ? args.node.sqlFragments.join('?') : args.node.kind);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: db.withPlugin(plugin), statements };
}

/** A process's journal of its own, as a second process on the database would have, with no listening connection: only its appends and reads move it. */
function journalOn(db: Kysely<WorkspaceSchema>, origin: string): { bus: EventBus; journal: PostgresEventJournal } {
  const bus = new EventBus();
  const journal = new PostgresEventJournal(bus, async () => db, origin, pino({ level: 'silent' }));
  bus.useJournal(journal);
  return { bus, journal };
}

const isAppend = (statement: string) => /insert into workspace_events/.test(statement);

/** Collects the payloads announced on the events channel, as a process's listening connection hears them. */
async function listenToEvents(): Promise<{ payloads: string[]; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (message) => payloads.push(message.payload ?? ''));
  await client.query('listen cc_events');
  return { payloads, close: () => client.end() };
}

/**
 * Two processes of one deployment (one secret), both following the workspace: a writer, and a
 * reader whose statements are recorded; and a connection hearing the notifications as they would.
 */
async function sealedPair(name: string) {
  const store = (await a.workspaces.handle(workspaceId)).database.db;
  const secret = randomBytes(32);
  const writer = journalOn(store, `proc_${name}_writer`);
  const recorded = recording(store);
  const reader = journalOn(recorded.db, `proc_${name}_reader`);
  writer.journal.useSecret(secret);
  reader.journal.useSecret(secret);
  const listening = await listenToEvents();
  await Promise.all([writer.bus.ready(workspaceId), reader.bus.ready(workspaceId)]).catch(async (error: unknown) => {
    await listening.close();
    throw error;
  });
  return { writer, reader, recorded, listening };
}

describe('the commit path of live events (NF-SCALE: commit to another process\'s stream < 100 ms)', () => {
  it('a batch with its live-state rows is one statement, folded to each row\'s last word; a process hands over its own events without reading them back', async () => {
    const store = (await a.workspaces.handle(workspaceId)).database.db;
    const recorded = recording(store);
    const { bus, journal } = journalOn(recorded.db, 'proc_batch_test');
    await bus.ready(workspaceId);
    const seen: WorkspaceEvent[] = [];
    const stop = bus.subscribe(workspaceId, (event) => seen.push(event));
    const since = new Date().toISOString();
    const question = (id: string, runId: string) => ({ id, runId, agentId: 'ag_fold', question: 'Which?', options: [], createdAt: since });
    // Published in one tick: one batch.
    bus.publish(workspaceId, 'question.asked', question('q_answered', 'run_fold_1') as never);
    bus.publish(workspaceId, 'presence.updated', { agentId: 'ag_fold', status: 'thinking', runId: 'run_fold_1', since });
    bus.publish(workspaceId, 'question.answered', { id: 'q_answered', runId: 'run_fold_1' } as never);
    bus.publish(workspaceId, 'run.paused', { runId: 'run_fold_2' } as never);
    bus.publish(workspaceId, 'question.asked', question('q_of_ended_run', 'run_fold_2') as never);
    bus.publish(workspaceId, 'run.updated', { id: 'run_fold_2', state: 'completed' } as never);
    bus.publish(workspaceId, 'question.asked', question('q_open', 'run_fold_3') as never);
    bus.publish(workspaceId, 'run.paused', { runId: 'run_fold_3' } as never);
    bus.publish(workspaceId, 'presence.updated', { agentId: 'ag_fold', status: 'idle', runId: null, since });
    await journal.settle();
    // Delivered to this process's subscribers as soon as the append returned: no listening connection, no read.
    expect(seen.map((event) => event.type)).toEqual(['question.asked', 'presence.updated', 'question.answered', 'run.paused', 'question.asked', 'run.updated', 'question.asked', 'run.paused', 'presence.updated']);
    const first = seen[0]!.sequence;
    expect(seen.map((event) => event.sequence)).toEqual(seen.map((_, index) => first + index));
    // Its position when it started following, then the one statement of the batch: no lock, clock, notification or savepoint apart.
    expect(recorded.statements.slice(1)).toHaveLength(1);
    expect(isAppend(recorded.statements[1]!)).toBe(true);
    const rows = async <T>(table: 'live_questions' | 'live_run_pauses' | 'live_agent_presence', column: string) =>
      (await store.selectFrom(table).select(column as never).execute()).map((row) => (row as Record<string, T>)[column]);
    expect(await rows('live_questions', 'id')).toContain('q_open');
    expect(await rows('live_questions', 'id')).not.toContain('q_answered');
    expect(await rows('live_questions', 'id')).not.toContain('q_of_ended_run');
    expect(await rows('live_run_pauses', 'run_id')).toContain('run_fold_3');
    expect(await rows('live_run_pauses', 'run_id')).not.toContain('run_fold_2');
    const presence = await store.selectFrom('live_agent_presence').select('data').where('agent_id', '=', 'ag_fold').executeTakeFirstOrThrow();
    expect(JSON.parse(presence.data)).toMatchObject({ status: 'idle', runId: null });
    stop();
  });

  it('the notification of a process\'s own append, heard before the append returns, costs no read; another process\'s event heard meanwhile is read', async () => {
    const store = (await a.workspaces.handle(workspaceId)).database.db;
    const recorded = recording(store);
    const { bus, journal } = journalOn(recorded.db, 'proc_early_notice');
    const other = journalOn(store, 'proc_other');
    await Promise.all([bus.ready(workspaceId), other.bus.ready(workspaceId)]);
    const seen: WorkspaceEvent[] = [];
    const stop = bus.subscribe(workspaceId, (event) => seen.push(event));
    const notice = (id: number) => journal.notified(JSON.stringify({ w: workspaceId, id }));
    bus.publish(workspaceId, 'space.updated', { id: 'sp_n', name: 'own-early' } as never);
    // As the listening connection can: the append's own notification before its answer.
    notice(journal.position(workspaceId) + 1);
    await journal.settle();
    expect(marks(seen)).toEqual(['own-early']);
    const readsAfterFollowing = recorded.statements.slice(1).filter((statement) => !isAppend(statement));
    expect(readsAfterFollowing).toEqual([]);
    // Another process's event is committed; its notice arrives while this process's next append runs.
    other.bus.publish(workspaceId, 'space.updated', { id: 'sp_n', name: 'other-meanwhile' } as never);
    await other.journal.settle();
    bus.publish(workspaceId, 'space.updated', { id: 'sp_n', name: 'own-after' } as never);
    notice(other.journal.position(workspaceId));
    await journal.settle();
    await waitFor(() => marks(seen).length === 3, 10_000);
    expect(marks(seen)).toEqual(['own-early', 'other-meanwhile', 'own-after']);
    expect(seen.map((event) => event.sequence)).toEqual([0, 1, 2].map((index) => seen[0]!.sequence + index));
    stop();
  });

  it('another process\'s batch travels sealed in its notification and is delivered from it without a read; one that does not follow the cursor, or too large to travel, is read', async () => {
    const { writer, reader, recorded, listening } = await sealedPair('sealed');
    try {
      const seen: WorkspaceEvent[] = [];
      const stop = reader.bus.subscribe(workspaceId, (event) => seen.push(event));
      const readsBefore = recorded.statements.length;
      // The writer's latest batch's notification (other workspaces' seeding is announced on the channel too).
      const hear = async () => {
        await writer.journal.settle();
        const ours = (payload: string) => JSON.parse(payload).w === workspaceId && JSON.parse(payload).id === writer.journal.position(workspaceId);
        await waitFor(() => listening.payloads.some(ours), 10_000);
        return listening.payloads.find(ours)!;
      };
      for (const name of ['sealed-1', 'sealed-2', 'sealed-3']) writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_sealed', name } as never);
      const carried = await hear();
      // A listener that holds no key learns the ids, not the events.
      expect(carried).not.toContain('sealed-1');
      expect(JSON.parse(carried)).toMatchObject({ w: workspaceId, first: expect.any(Number), id: expect.any(Number), box: expect.any(String), mac: expect.stringMatching(/^[0-9a-f]{64}$/) });
      reader.journal.notified(carried);
      // Delivered synchronously from the notification, with the committed ids: not one statement sent.
      expect(marks(seen)).toEqual(['sealed-1', 'sealed-2', 'sealed-3']);
      expect(seen.map((event) => event.sequence)).toEqual([JSON.parse(carried).first, JSON.parse(carried).first + 1, JSON.parse(carried).id]);
      expect(recorded.statements.length).toBe(readsBefore);
      // Two batches; the reader hears only the second: it does not follow its cursor, so the table fills the gap, in order.
      writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_sealed', name: 'missed' } as never);
      await hear();
      writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_sealed', name: 'after-the-gap' } as never);
      reader.journal.notified(await hear());
      await waitFor(() => marks(seen).length === 5, 10_000);
      expect(marks(seen)).toEqual(['sealed-1', 'sealed-2', 'sealed-3', 'missed', 'after-the-gap']);
      expect(seen.map((event) => event.sequence)).toEqual(seen.map((_, index) => seen[0]!.sequence + index));
      expect(recorded.statements.slice(readsBefore)).toEqual(['SelectQueryNode']);
      // A batch too large for a notification is announced by ids only, and read.
      const large = 'x'.repeat(10_000);
      writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_sealed', name: large } as never);
      const announced = await hear();
      expect(Object.keys(JSON.parse(announced)).sort()).toEqual(['id', 'w']);
      reader.journal.notified(announced);
      await waitFor(() => marks(seen).length === 6, 10_000);
      expect(marks(seen).at(-1)).toBe(large);
      expect(recorded.statements.slice(readsBefore)).toEqual(['SelectQueryNode', 'SelectQueryNode']);
      stop();
    } finally {
      await listening.close();
    }
  });

  it('events published a moment apart are one append: the first waits a few milliseconds for company', async () => {
    const store = (await a.workspaces.handle(workspaceId)).database.db;
    const recorded = recording(store);
    const { bus, journal } = journalOn(recorded.db, 'proc_gathering');
    await bus.ready(workspaceId);
    const seen: WorkspaceEvent[] = [];
    const stop = bus.subscribe(workspaceId, (event) => seen.push(event));
    // As a turn publishes: at several moments of one piece of work, each after the previous one's event-loop turn.
    for (const name of ['moment-1', 'moment-2', 'moment-3']) {
      bus.publish(workspaceId, 'space.updated', { id: 'sp_moments', name } as never);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await journal.settle();
    expect(marks(seen)).toEqual(['moment-1', 'moment-2', 'moment-3']);
    expect(recorded.statements.filter(isAppend)).toHaveLength(1);
    stop();
  });

  it('a batch too large for one notification travels sealed in several, in id order, and another process delivers it without a read', async () => {
    const { writer, reader, recorded, listening } = await sealedPair('parts');
    try {
      const seen: WorkspaceEvent[] = [];
      const stop = reader.bus.subscribe(workspaceId, (event) => seen.push(event));
      const readsBefore = recorded.statements.length;
      const from = writer.journal.position(workspaceId);
      // Ten events of 2,000 characters in one batch: 20,000 characters, where one notification holds at most 8,000 bytes.
      const names = Array.from({ length: 10 }, (_, index) => `${index}`.padEnd(2_000, 'p'));
      for (const name of names) writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_parts', name } as never);
      await writer.journal.settle();
      const last = writer.journal.position(workspaceId);
      expect(last - from).toBe(10);
      const ours = (payload: string) => JSON.parse(payload).w === workspaceId && JSON.parse(payload).id > from;
      await waitFor(() => listening.payloads.filter(ours).some((payload) => JSON.parse(payload).id === last), 10_000);
      const parts = listening.payloads.filter(ours);
      expect(parts.length).toBeGreaterThan(2);
      for (const part of parts) {
        expect(Buffer.byteLength(part)).toBeLessThan(8_000);
        expect(part).not.toContain('pppp');
        reader.journal.notified(part);
      }
      // Each part reached back to the one before: all delivered from the notifications, not one statement sent.
      expect(marks(seen)).toEqual(names);
      expect(seen.map((event) => event.sequence)).toEqual(names.map((_, index) => from + 1 + index));
      expect(recorded.statements.length).toBe(readsBefore);
      stop();
    } finally {
      await listening.close();
    }
  });

  it('a process with no open stream parses only the events a reaction of its own waits for; a stream opened later still gets each event once, in order', async () => {
    const { writer, reader, listening } = await sealedPair('unwanted');
    try {
      const reactions: WorkspaceEvent[] = [];
      const stopReacting = reader.bus.subscribeRemote(['approval.decided'], (event) => reactions.push(event));
      const from = reader.journal.position(workspaceId);
      writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_unwanted', name: 'unwanted-1' } as never);
      writer.bus.publish(workspaceId, 'approval.decided', { id: 'ap_unwanted', status: 'approved' } as never);
      writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_unwanted', name: 'unwanted-2' } as never);
      await writer.journal.settle();
      const last = writer.journal.position(workspaceId);
      const ours = (payload: string) => JSON.parse(payload).w === workspaceId && JSON.parse(payload).id > from;
      await waitFor(() => listening.payloads.filter(ours).some((payload) => JSON.parse(payload).id === last), 10_000);
      const parse = vi.spyOn(JSON, 'parse');
      let parsed: unknown[];
      try {
        for (const payload of listening.payloads.filter(ours)) reader.journal.notified(payload);
      } finally {
        parsed = parse.mock.calls.map(([text]) => text);
        parse.mockRestore();
      }
      // Opened (the types are in the box) and the cursor moved; the approval parsed for the reaction, the space updates never.
      expect(reactions.map((event) => [event.type, event.sequence])).toEqual([['approval.decided', from + 2]]);
      expect(parsed.filter((text) => typeof text === 'string' && text.startsWith('{"id":"sp_unwanted"'))).toEqual([]);
      expect(reader.journal.position(workspaceId)).toBe(last);
      // A stream opened now, resuming from before the batch, is served from the table: all three, in order, once.
      const seen: WorkspaceEvent[] = [];
      const stop = reader.bus.subscribe(workspaceId, (event) => seen.push(event), from);
      writer.bus.publish(workspaceId, 'space.updated', { id: 'sp_unwanted', name: 'wanted-live' } as never);
      await writer.journal.settle();
      reader.journal.caughtUp();
      await waitFor(() => seen.length >= 4, 10_000);
      expect(seen.map((event) => event.sequence)).toEqual([1, 2, 3, 4].map((offset) => from + offset));
      expect(marks(seen)).toEqual(['unwanted-1', 'unwanted-2', 'wanted-live']);
      stop();
      stopReacting();
    } finally {
      await listening.close();
    }
  });

  it('two processes appending at once take contiguous ids, each event once, in each process\'s publish order, one statement per batch', async () => {
    const store = (await a.workspaces.handle(workspaceId)).database.db;
    const one = recording(store);
    const two = recording(store);
    const processes = [journalOn(one.db, 'proc_race_1'), journalOn(two.db, 'proc_race_2')];
    await Promise.all(processes.map(({ bus }) => bus.ready(workspaceId)));
    const seen = processes.map(({ bus }) => {
      const events: WorkspaceEvent[] = [];
      bus.subscribe(workspaceId, (event) => events.push(event));
      return events;
    });
    // Bursts from both at once, so their appends race for the same ids again and again.
    for (let burst = 0; burst < 30; burst += 1) {
      for (const [index, { bus }] of processes.entries()) {
        for (let event = 0; event < 3; event += 1) bus.publish(workspaceId, 'space.updated', { id: 'sp_race', name: `p${index}-${burst}-${event}` } as never);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(processes.map(({ journal }) => journal.settle()));
    // Without a listening connection a process reads the other's events when its own do not follow its cursor; a catch-up reads the rest.
    for (const { journal } of processes) journal.caughtUp();
    await waitFor(() => seen.every((events) => marks(events).length >= 180), 15_000);
    for (const [index, events] of seen.entries()) {
      const sequences = events.map((event) => event.sequence);
      expect(sequences).toEqual(sequences.map((_, offset) => sequences[0]! + offset));
      expect(marks(events)).toHaveLength(180);
      const own = marks(events).filter((name) => name.startsWith(`p${index}-`));
      expect(own).toEqual(Array.from({ length: 90 }, (_, offset) => `p${index}-${Math.floor(offset / 3)}-${offset % 3}`));
    }
    expect(seen[0]!.map((event) => event.sequence)).toEqual(seen[1]!.map((event) => event.sequence));
    // Every statement besides the appends only reads (a position or the rows after it).
    for (const { statements } of [one, two]) {
      expect(statements.filter((statement) => !isAppend(statement)).every((statement) => statement === 'SelectQueryNode')).toBe(true);
    }
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

