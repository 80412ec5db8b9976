/**
 * HAR-5, held messages: of several processes that notice the same turn end, exactly one claims each
 * message held behind it (one UPDATE), oldest first; a message claimed by a process that died before
 * starting it is taken over by the next sweep, never lost. Real SQLite, or PostgreSQL under
 * CC_TEST_DATABASE=postgres.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
