import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE: an idle worker on PostgreSQL sends few statements per beat and per queue poll — each one
 * wakes the worker and the database, and during a drain or a burst they compete with the turns for
 * the CPU. Counted per round (the beats and polls seen in the window), never against a clock: a slow
 * machine has fewer rounds, not more statements per round.
 * - a beat: its heartbeat, the failover sweep and "does a dead process own runs?" in one statement,
 *   then per workspace the orphan sweep only when a dead process owns runs; the workspace list is the
 *   poll's, not read again; the sweeps for held messages, lost dispatches and long-dead processes run
 *   at the rate their deadline needs, not every beat;
 * - a poll: the workspace list, then per idle queue one statement (overdue leases put back and
 *   "anything claimable?" together; the pipeline's look-ahead takes that statement's answer), and the
 *   runs queues' names.
 * An API-role and a worker-role control center in this process on one PostgreSQL database; the API
 * process sends nothing while idle. Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  // The defaults of a deployment: a 4 s lease (a beat every 500 ms) and a poll every second.
  pair = await startDispatchPair({ workspaceName: 'Idle worker', worker: {} });
  // Past the start-up rounds (the first sweeps of every kind run at once).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

describe.skipIf(!postgresEnabled)('an idle worker on PostgreSQL', () => {
  it('sends at most 2 statements per beat and 5 per poll (one workspace, three queues)', async () => {
    const sent = await statementsDuring(() => new Promise((resolve) => setTimeout(resolve, 4_000)));
    const beats = sent.filter((text) => text.includes('insert into cc_pgboss.cc_processes')).length;
    const polls = sent.filter((text) => text.startsWith('select name from cc_pgboss.queue where starts_with(name, $1)')).length;
    expect(beats).toBeGreaterThan(0);
    expect(polls).toBeGreaterThan(0);
    const byKind = new Map<string, number>();
    for (const text of sent) byKind.set(text.slice(0, 90), (byKind.get(text.slice(0, 90)) ?? 0) + 1);
    // One round of each kind may straddle the window's edges; a lost-dispatch sweep may fall in it.
    expect(sent.length, JSON.stringify({ beats, polls, byKind: Object.fromEntries(byKind) }, null, 1)).toBeLessThanOrEqual(2 * beats + 5 * polls + 9);
    // No separate failover sweep: it rides on the heartbeat; no orphan sweep while no dead process owns a run.
    expect(sent.filter((text) => text.startsWith('update cc_pgboss.cc_processes p set noticed_dead_at'))).toEqual([]);
    expect(sent.filter((text) => text.startsWith('delete from cc_pgboss.cc_run_owners o'))).toEqual([]);
    // Held messages are swept every few beats, not at each.
    expect(sent.filter((text) => text.startsWith('update "held_messages"')).length).toBeLessThan(beats);
    // The workspaces are read once per poll at most, not again by the beats.
    expect(sent.filter((text) => text.startsWith('select * from "workspaces"')).length).toBeLessThanOrEqual(polls + 1);
  }, 30_000);
});
