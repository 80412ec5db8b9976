import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import type { WorkspaceEvent } from '../../src/services/event-bus.js';
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
    center.events.publish(workspaceId, 'space.updated', { id: 'sp_x', name: 'still-alive' } as never);
    center.events.publish(otherWorkspaceId, 'space.updated', { id: 'sp_y', name: 'bystander-alive' } as never);
    await untilSeen(seen, 'still-alive');
    await untilSeen(seenByOther, 'bystander-alive');
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
});
