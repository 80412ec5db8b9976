import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgBossConnection } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { RunAffinity } from '../../src/services/runs/run-affinity.js';
import { RunQueue, type QueuedRun } from '../../src/services/runs/run-queue.js';
import { guardPoolConnections } from '../../src/store/connection-error-guard.js';
import type { WorkspaceSchema } from '../../src/store/workspace-schema.js';
import { closeInOrder, freshTestDatabase } from '../support/test-database.js';

/**
 * NF-SCALE: a worker whose room is full when it polls claims the next waiting run as soon as one of
 * its runs ends, not at its next poll. The claim loop used to stop once the room was full, and the
 * runs waiting behind it then waited up to a poll period (a second) with the room free: whether they
 * did depended only on whether the worker's claims were quicker than its runs. One poll here, room
 * for one run, three runs queued: all three are executed, one after the other, with no second poll.
 * Real PostgreSQL and pg-boss; runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let sql: pg.Pool;
let connection: PgBossConnection;
let runQueue: RunQueue;

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  sql = guardPoolConnections(new pg.Pool({ connectionString: database.url, max: 2 }));
  connection = new PgBossConnection(database.url);
  await connection.start();
  const affinity = new RunAffinity(sql, 10_000);
  await affinity.heartbeat('proc_a');
  runQueue = new RunQueue(connection, affinity, { processId: 'proc_a', leaseMs: 10_000, maxConcurrent: 1, stealAfterMs: 60_000, logger: pino({ level: 'silent' }) });
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  runQueue?.stop();
  await runQueue?.settle();
  await closeInOrder([() => connection?.stop(), () => sql?.end(), () => database?.drop()]);
});

const queuedRun = (runId: string): QueuedRun => ({ runId, agentId: 'agent_1', spaceId: null, conversationId: null, mode: 'chat', autonomy: 'actWithApproval', prompt: 'go', history: [], repoPath: null });

describe.skipIf(!enabled)('the end of a run claims the next one', () => {
  it('one poll with room for one run executes all three queued runs, each after the one before ended', async () => {
    for (const runId of ['run_1', 'run_2', 'run_3']) await runQueue.enqueue('ws_1', queuedRun(runId));
    const executed: string[] = [];
    let running = 0;
    let most = 0;
    let allDone!: () => void;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const started = await runQueue.poll(
      'ws_1',
      async (_workspaceId, run) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        executed.push(run.runId);
        running -= 1;
        if (executed.length === 3) allDone();
      },
      // Read only to move runs waiting on another live process's queue: there is none here.
      new Kysely<WorkspaceSchema>({ dialect: new PostgresDialect({ pool: sql }) }),
    );
    // The poll itself started one run: the room was full after it.
    expect(started).toBe(1);
    await done;
    expect(executed).toEqual(['run_1', 'run_2', 'run_3']);
    expect(most).toBe(1);
  }, 30_000);
});
