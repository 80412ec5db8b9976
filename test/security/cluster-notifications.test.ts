import { createHmac, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import type { WorkspaceEvent } from '../../src/services/event-bus.js';
import { EventSeal, signedText } from '../../src/services/cluster/sealed-event-batch.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * The notification channels are shared by every process on the database; a payload is
 * only ever a workspace id and an event or command id, read as data. Anything else — junk, wrong
 * types, SQL, a path — is ignored, never executed or used to reach another workspace, and delivery
 * goes on.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dataRoot: string;
let center: ControlCenter;
let workspaceId: string;
/** A second workspace on the same database: what "never reaches another workspace" is observed on. */
let otherWorkspaceId: string;

beforeAll(async () => {
  database = await freshTestDatabase();
  dataRoot = await makeDataRoot();
  center = await ControlCenter.open({ dataRoot, database: database.url });
  workspaceId = (await center.workspaces.create('Guarded')).id;
  otherWorkspaceId = (await center.workspaces.create('Bystander')).id;
  await center.seeding.settle();
}, 60_000);

afterAll(async () => {
  await center?.close();
  await rm(dataRoot, { recursive: true, force: true });
  await database?.drop();
});

/** Waits until `seen` holds an event whose data is named `name`. */
async function untilSeen(seen: WorkspaceEvent[], name: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!seen.some((event) => (event.data as { name?: string }).name === name)) {
    if (Date.now() > deadline) throw new Error(`the event ${name} after the hostile notifications never arrived`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** After the hostile notifications: a mark published in each workspace reaches that workspace's subscriber — delivery goes on. */
async function deliveryGoesOn(seen: WorkspaceEvent[], seenByOther: WorkspaceEvent[], name: string, bystanderName: string): Promise<void> {
  center.events.publish(workspaceId, 'space.updated', { id: 'sp_x', name } as never);
  center.events.publish(otherWorkspaceId, 'space.updated', { id: 'sp_y', name: bystanderName } as never);
  await untilSeen(seen, name);
  await untilSeen(seenByOther, bystanderName);
}

describe('hostile notifications on the shared channels', () => {
  it('a payload that is not {workspace id, integer id} is ignored and delivery goes on', async () => {
    await center.events.ready(workspaceId);
    await center.events.ready(otherWorkspaceId);
    center.events.publish(workspaceId, 'space.updated', { id: 'sp_x', name: 'guarded-before' } as never);
    const seen: WorkspaceEvent[] = [];
    const seenByOther: WorkspaceEvent[] = [];
    const stop = center.events.subscribe(workspaceId, (event) => seen.push(event));
    const stopOther = center.events.subscribe(otherWorkspaceId, (event) => seenByOther.push(event));
    await untilSeen(seen, 'guarded-before');
    const guardedEventId = seen.at(-1)!.sequence;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (const payload of ['junk', '{"w":1,"id":2}', `{"w":"${workspaceId}","id":"1; drop table workspace_events"}`, '{"w":"nope\\u0000","id":1.5}', 'null']) {
        await client.query('select pg_notify($1, $2)', ['cc_events', payload]);
        await client.query('select pg_notify($1, $2)', ['cc_run_commands', payload]);
      }
      await client.query('select pg_notify($1, $2)', ['cc_events', JSON.stringify({ w: '../../etc', id: 1 })]);
      // Well-formed, naming the bystander with the guarded workspace's event ids: only the
      // bystander's own events may ever reach its subscribers.
      for (const id of [guardedEventId, guardedEventId - 1, 1]) {
        await client.query('select pg_notify($1, $2)', ['cc_events', JSON.stringify({ w: otherWorkspaceId, id })]);
        await client.query('select pg_notify($1, $2)', ['cc_run_commands', JSON.stringify({ w: otherWorkspaceId, id })]);
      }
    } finally {
      await client.end();
    }
    await deliveryGoesOn(seen, seenByOther, 'still-alive', 'bystander-alive');
    expect(seen.every((event) => event.workspaceId === workspaceId)).toBe(true);
    expect(seen.map((event) => event.sequence)).toEqual([...new Set(seen.map((event) => event.sequence))]);
    // The bystander got its own events and nothing of the guarded workspace's.
    expect(seenByOther.every((event) => event.workspaceId === otherWorkspaceId)).toBe(true);
    expect(seenByOther.map((event) => (event.data as { name?: string }).name)).toContain('bystander-alive');
    expect(seenByOther.filter((event) => JSON.stringify(event).includes(workspaceId) || ['guarded-before', 'still-alive'].includes((event.data as { name?: string }).name ?? ''))).toEqual([]);
    expect(seen.map((event) => (event.data as { name?: string }).name)).not.toContain('bystander-alive');
    stop();
    stopOther();
  });

  it('a notification carrying events delivers only what the deployment sealed: forged, replayed under other ids or moved to another workspace, it delivers nothing', async () => {
    const seen: WorkspaceEvent[] = [];
    const seenByOther: WorkspaceEvent[] = [];
    const stop = center.events.subscribe(workspaceId, (event) => seen.push(event));
    const stopOther = center.events.subscribe(otherWorkspaceId, (event) => seenByOther.push(event));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const heard: string[] = [];
    client.on('notification', (message) => heard.push(message.payload ?? ''));
    await client.query('listen cc_events');
    try {
      center.events.publish(workspaceId, 'space.updated', { id: 'sp_x', name: 'genuine' } as never);
      await untilSeen(seen, 'genuine');
      const genuineId = seen.at(-1)!.sequence;
      const deadline = Date.now() + 10_000;
      while (!heard.some((payload) => JSON.parse(payload).id === genuineId)) {
        if (Date.now() > deadline) throw new Error('the genuine notification was never heard');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const genuine = JSON.parse(heard.find((payload) => JSON.parse(payload).id === genuineId)!) as { w: string; first: number; id: number; ms: number; box: string; mac: string };
      // Anyone who may connect hears the notification: it carries the ids, never the event.
      expect(genuine.box).toEqual(expect.any(String));
      expect(JSON.stringify(genuine)).not.toContain('genuine');
      // One that knows the format but not the deployment's secret: a well-formed batch of its own making.
      const forger = new EventSeal(randomBytes(32));
      const forgedBatch = [{ type: 'space.updated', data: JSON.stringify({ id: 'sp_x', name: 'forged' }), at: new Date().toISOString(), origin: 'proc_forger' }];
      const forgedMac = (w: string, first: number, box: string) =>
        createHmac('sha256', createHmac('sha256', randomBytes(32)).update('cc_events mac').digest()).update(signedText(w, first, first, genuine.ms, box)).digest('hex');
      const notices = [
        // The genuine batch replayed as the next ids, and moved to the bystander workspace.
        { ...genuine, first: genuine.first + 1, id: genuine.id + 1 },
        { ...genuine, w: otherWorkspaceId },
        // A forged batch for the next id, with a MAC under a key of its own, and with the genuine MAC.
        ...[workspaceId, otherWorkspaceId].flatMap((w) => {
          const box = forger.seal(w, forgedBatch).parts[0]!.box!;
          return [
            { w, first: genuineId + 1, id: genuineId + 1, ms: genuine.ms, box, mac: forgedMac(w, genuineId + 1, box) },
            { w, first: genuineId + 1, id: genuineId + 1, ms: genuine.ms, box, mac: genuine.mac },
          ];
        }),
      ];
      for (const notice of notices) await client.query('select pg_notify($1, $2)', ['cc_events', JSON.stringify(notice)]);
    } finally {
      await client.end();
    }
    await deliveryGoesOn(seen, seenByOther, 'after-forgeries', 'bystander-after-forgeries');
    const names = (events: WorkspaceEvent[]) => events.map((event) => (event.data as { name?: string }).name);
    expect(names(seen)).toEqual(['genuine', 'after-forgeries']);
    expect(names(seenByOther)).toEqual(['bystander-after-forgeries']);
    // Every delivered event is the committed row of its id: nothing was delivered under another's id.
    const store = (await center.workspaces.handle(workspaceId)).database.db;
    for (const event of seen) {
      const row = await store.selectFrom('workspace_events').select('data').where('id', '=', event.sequence).executeTakeFirstOrThrow();
      expect(JSON.parse(row.data)).toEqual(event.data);
    }
    expect(seen[1]!.sequence).toBe(seen[0]!.sequence + 1);
    stop();
    stopOther();
  });
});
