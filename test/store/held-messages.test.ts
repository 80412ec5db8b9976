/**
 * HAR-5, held messages: of several processes that notice the same turn end, exactly one claims each
 * message held behind it (one UPDATE), oldest first; a message claimed by a process that died before
 * starting it is taken over by the next sweep, never lost; a run's end says whether a message waits
 * for it, so the processes that hear an end nobody waits for send no claim. Real SQLite, or
 * PostgreSQL under CC_TEST_DATABASE=postgres.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/schemas/run.js';
import { FollowUpTurns } from '../../src/services/runs/follow-up-turns.js';
import { endRun, insertRun } from '../../src/store/repositories/run-repository.js';
import { claimHeldMessages, insertHeldMessage, type HeldMessage } from '../../src/store/repositories/held-message-repository.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { testStoreLocation } from '../support/test-database.js';

let dir: string;
let store: Awaited<ReturnType<typeof testStoreLocation>>;
let database: WorkspaceDatabase;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-held-messages-'));
  store = await testStoreLocation();
  database = await WorkspaceDatabase.open('ws_held_messages', dir, store.location);
}, 120_000);
afterAll(async () => {
  await database?.close();
  await store?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const held = (id: string, awaitedRunId: string, createdAt: string): HeldMessage => ({
  id,
  conversationId: 'conv_1',
  awaitedRunId,
  text: `text of ${id}`,
  agentId: null,
  operatorId: 'op_1',
  createdAt,
});

it('two processes noticing the same end claim each held message exactly once, oldest first', async () => {
  await insertHeldMessage(database.db, held('held_b', 'run_ended', '2026-01-01T00:00:02.000Z'));
  await insertHeldMessage(database.db, held('held_a', 'run_ended', '2026-01-01T00:00:01.000Z'));
  await insertHeldMessage(database.db, held('held_other', 'run_other', '2026-01-01T00:00:01.000Z'));
  const now = new Date().toISOString();
  const [first, second] = await Promise.all([
    claimHeldMessages(database.db, 'proc_1:1', now, { awaitedRunId: 'run_ended' }),
    claimHeldMessages(database.db, 'proc_2:1', now, { awaitedRunId: 'run_ended' }),
  ]);
  const claimed = [...first!, ...second!].map((message) => message.id);
  expect(claimed.sort()).toEqual(['held_a', 'held_b']);
  const winner = first!.length > 0 ? first! : second!;
  expect(winner.map((message) => message.id)).toEqual(['held_a', 'held_b']);
  // Claimed once: the same end noticed again claims nothing.
  expect(await claimHeldMessages(database.db, 'proc_3:1', now, { awaitedRunId: 'run_ended' })).toEqual([]);
});

it('a sweep starts what waits for a run no longer going, and takes over the claims of holders that are gone', async () => {
  const longAgo = '2026-01-01T00:00:00.000Z';
  // A shared store: held_a/held_b were claimed just now by a live process; only held_other is free.
  const shared = await claimHeldMessages(database.db, 'proc_9:1', new Date().toISOString(), { endedRuns: true, reclaimClaimsBefore: longAgo, reclaimClaimsNotByPrefix: null });
  expect(shared.map((message) => message.id)).toEqual(['held_other']);
  // A restarted embedded server is alone: every claim made before it started is a dead process's.
  const restarted = await claimHeldMessages(database.db, 'proc_20:1', new Date().toISOString(), { endedRuns: true, reclaimClaimsBefore: longAgo, reclaimClaimsNotByPrefix: 'proc_20:' });
  expect(restarted.map((message) => message.id)).toEqual(['held_a', 'held_other', 'held_b']);
});

describe('a run end says whether a message waits for it', () => {
  const runRow = (id: string): Run => ({
    id,
    agentId: 'agent_1',
    spaceId: null,
    conversationId: 'conv_1',
    parentRunId: null,
    state: 'running',
    liveness: 'ok',
    deliverableFailed: false,
    error: null,
    createdAt: new Date().toISOString(),
    startedAt: new Date().toISOString(),
    endedAt: null,
    mode: null,
    autonomy: null,
    model: null,
    depth: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    sandbox: null,
    inheritedRules: [],
  });
  const logger = pino({ level: 'silent' });

  /** Follow-up turns of one process, with every statement it sends that touches held_messages counted. */
  function followUps() {
    const touchingHeldMessages: string[] = [];
    const started: string[] = [];
    const counted = database.db.withPlugin({
      transformQuery: (args) => {
        if (JSON.stringify(args.node).includes('"held_messages"')) touchingHeldMessages.push(args.node.kind);
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    });
    const turns = new FollowUpTurns({ db: () => Promise.resolve(counted), start: (_workspaceId, message) => Promise.resolve(started.push(message.id)), logger });
    return { turns, touchingHeldMessages, started };
  }

  it('an end nobody waits for costs no claim in the processes that hear it; a held message is started once its run ends', async () => {
    const quiet = runRow('run_quiet');
    await insertRun(database.db, quiet);
    const ended = { ...quiet, state: 'completed' as const };
    const { messagesHeld } = await endRun(database.db, quiet.id, { state: 'completed' });
    expect(messagesHeld).toBe(false);
    const processes = [followUps(), followUps()];
    for (const process of processes) process.turns.runUpdated('ws_held_messages', { ...ended, messagesHeld });
    // An end written by a release that does not say is still claimed for (nothing waits here).
    const older = followUps();
    older.turns.runUpdated('ws_held_messages', ended);
    await expect.poll(() => older.touchingHeldMessages.length).toBeGreaterThan(0);
    expect(processes.map((process) => process.touchingHeldMessages)).toEqual([[], []]);

    const awaited = runRow('run_awaited');
    await insertRun(database.db, awaited);
    const holder = followUps();
    await holder.turns.hold('ws_held_messages', { conversationId: 'conv_1', awaitedRunId: awaited.id, text: 'after you', agentId: null, operatorId: 'op_1' });
    expect(holder.started).toEqual([]);
    const end = await endRun(database.db, awaited.id, { state: 'completed' });
    expect(end.messagesHeld).toBe(true);
    const hearer = followUps();
    hearer.turns.runUpdated('ws_held_messages', { ...awaited, state: 'completed', ...end });
    await expect.poll(() => hearer.started.length).toBe(1);
  });

  it('a message held after its run ended (the end said none waits) is started by the hold itself', async () => {
    const late = runRow('run_late');
    await insertRun(database.db, late);
    expect((await endRun(database.db, late.id, { state: 'failed' })).messagesHeld).toBe(false);
    const holder = followUps();
    await holder.turns.hold('ws_held_messages', { conversationId: 'conv_1', awaitedRunId: late.id, text: 'too late', agentId: null, operatorId: 'op_1' });
    await expect.poll(() => holder.started.length).toBe(1);
  });
});
