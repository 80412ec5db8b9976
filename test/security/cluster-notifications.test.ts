import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import type { WorkspaceEvent } from '../../src/services/event-bus.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * Issue 16: the notification channels are shared by every process on the database; a payload is
 * only ever a workspace id and an event or command id, read as data. Anything else — junk, wrong
 * types, SQL, a path — is ignored, never executed or used to reach another workspace, and delivery
 * goes on.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dataRoot: string;
let center: ControlCenter;
let workspaceId: string;

beforeAll(async () => {
  database = await freshTestDatabase();
  dataRoot = await makeDataRoot();
  center = await ControlCenter.open({ dataRoot, database: database.url });
  workspaceId = (await center.workspaces.create('Guarded')).id;
  await center.seeding.settle();
}, 60_000);

afterAll(async () => {
  await center?.close();
  await rm(dataRoot, { recursive: true, force: true });
  await database?.drop();
});

describe('hostile notifications on the shared channels (issue 16)', () => {
  it('a payload that is not {workspace id, integer id} is ignored and delivery goes on', async () => {
    await center.events.ready(workspaceId);
    const seen: WorkspaceEvent[] = [];
    const stop = center.events.subscribe(workspaceId, (event) => seen.push(event));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (const payload of ['junk', '{"w":1,"id":2}', `{"w":"${workspaceId}","id":"1; drop table workspace_events"}`, '{"w":"nope\\u0000","id":1.5}', 'null']) {
        await client.query('select pg_notify($1, $2)', ['cc_events', payload]);
        await client.query('select pg_notify($1, $2)', ['cc_run_commands', payload]);
      }
      await client.query('select pg_notify($1, $2)', ['cc_events', JSON.stringify({ w: '../../etc', id: 1 })]);
    } finally {
      await client.end();
    }
    center.events.publish(workspaceId, 'space.updated', { id: 'sp_x', name: 'still-alive' } as never);
    const deadline = Date.now() + 10_000;
    while (!seen.some((event) => (event.data as { name?: string }).name === 'still-alive')) {
      if (Date.now() > deadline) throw new Error('the event after the hostile notifications never arrived');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen.every((event) => event.workspaceId === workspaceId)).toBe(true);
    expect(seen.map((event) => event.sequence)).toEqual([...new Set(seen.map((event) => event.sequence))]);
    stop();
  });
});
