import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * POL-7 on a shared store: a tool-call gate's timeout is a delayed job any process applies, so an
 * approval still expires when the process whose gate asked is killed. It is killed the moment
 * someone sees the approval — so the job must be in the queue before the approval exists, let alone
 * is announced. Queued after (as it was), a process killed in between (a pg-boss write is slow under
 * load) left an approval pending forever; the multi-process test of it passed only on a retry in CI.
 * One process on a real PostgreSQL database; the real queue.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

type TimeoutScheduler = (workspaceId: string, approvalId: string, dueAt: number) => Promise<void>;

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dataRoot: string;
let app: ControlCenter;
let sql: pg.Pool;
let workspaceId: string;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  dataRoot = await makeDataRoot();
  app = await ControlCenter.open({ dataRoot, database: database.url, role: 'api' });
  await app.auth.initialize();
  workspaceId = (await app.workspaces.create('Gates')).id;
  sql = new pg.Pool({ connectionString: database.url, max: 1 });
  sql.on('error', () => undefined);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await sql?.end();
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
  if (enabled) await database.drop();
});

describe.skipIf(!enabled)('a gate\'s durable timeout', () => {
  it('is queued before the approval is stored or announced, and the queued job names it', async () => {
    const approvals = app.approvals as unknown as { timeoutScheduler: TimeoutScheduler };
    const queueTimeout = approvals.timeoutScheduler;
    const storedWhenQueued: number[] = [];
    app.approvals.scheduleTimeoutsWith(async (...args) => {
      storedWhenQueued.push((await app.approvals.list(workspaceId)).length);
      await queueTimeout(...args);
    });
    const stop = new AbortController();
    const outcome = app.approvals.requestAndWait(workspaceId, { kind: 'tool', durable: false, title: 'touch gated.txt', request: { command: 'touch gated.txt' } }, { timeoutMs: 60_000, signal: stop.signal });
    await expect.poll(async () => (await app.approvals.list(workspaceId, { status: 'pending' })).length).toBe(1);
    const [approval] = await app.approvals.list(workspaceId, { status: 'pending' });
    expect(storedWhenQueued).toEqual([0]);
    const jobs = await sql.query(`select 1 from cc_pgboss.job where name = $1 and data->'payload'->>'approvalId' = $2 and state = 'created'`, [`${workspaceId}__approval-timeouts`, approval!.id]);
    expect(jobs.rowCount).toBe(1);
    stop.abort();
    expect((await outcome).status).toBe('expired');
  });
});
