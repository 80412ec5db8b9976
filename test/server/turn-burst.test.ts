import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { testDialect } from '../support/test-database.js';

/**
 * NF-SCALE, bursts: turns posted all at once are each accepted with a 202 naming its own run, none
 * lost, and every one of them runs to completion. No timing is asserted (bench/turn-burst.bench.ts
 * measures how long acceptance takes); this holds the contract the fast path must keep: accepted
 * turns are started through a bounded start queue — never more starts at once than it allows, in
 * the order each conversation's turns were posted, and a turn cancelled while it waits ends
 * without starting.
 */
const TURNS = 200;
const START_CONCURRENCY = 2;
let harness: HarnessFixture;
/** Runs inside their start (the prepare stage), and the most there ever were at once. */
let preparing = 0;
let mostPreparing = 0;
/** Run ids in the order their start reached the prepare stage. */
const prepared: string[] = [];
/** Holds every start in its prepare stage until released, so the queue's bound can be seen. */
let releaseStarts!: () => void;
const startsReleased = new Promise<void>((resolve) => (releaseStarts = resolve));

beforeAll(async () => {
  harness = await startHarnessFixture({ operatorConnected: false, server: { runStartConcurrency: START_CONCURRENCY } });
  harness.server.running.app.executor.registerPrepareHook(async ({ scope }) => {
    preparing += 1;
    mostPreparing = Math.max(mostPreparing, preparing);
    prepared.push(scope.runId);
    await startsReleased;
    preparing -= 1;
  });
}, 120_000);
afterAll(async () => {
  releaseStarts?.();
  await harness?.dispose();
});

describe('a burst of turns posted at once', () => {
  it(`${TURNS} concurrent turns, each in its own conversation: all 202 with distinct runs, started ${START_CONCURRENCY} at a time, in order per conversation, all completed`, async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversations: string[] = [];
    for (let index = 0; index < TURNS; index += 1) {
      const created = await api('POST', `/spaces/${spaceId}/conversations`, { title: `burst ${index}` });
      expect(created.status).toBe(201);
      conversations.push(created.body.id);
    }
    const answers = await Promise.all(conversations.map((conversationId, index) => api('POST', `/conversations/${conversationId}/messages`, { text: `turn ${index}` })));
    expect(answers.map((answer) => answer.status)).toEqual(conversations.map(() => 202));
    const runIds = answers.map((answer) => answer.body.run.id as string);
    expect(new Set(runIds).size).toBe(TURNS);
    for (const [index, answer] of answers.entries()) expect(answer.body.run.conversationId).toBe(conversations[index]);

    // Every turn is answered while the starts are held: only the queue's bound of them are preparing.
    await expect.poll(() => preparing, { timeout: 60_000 }).toBe(START_CONCURRENCY);
    expect(harness.server.running.app.executor.startQueue.depth).toBe(TURNS - START_CONCURRENCY);

    // Three turns of one conversation, posted one after another behind the burst, each to another
    // agent (a message to the agent of a turn in progress would steer that turn); the second is
    // cancelled while it waits for its start.
    const own = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'ordered' })).body.id as string;
    const agentIds = Object.values(harness.agents).slice(0, 3).map((agent) => agent.id);
    expect(agentIds).toHaveLength(3);
    const ordered: string[] = [];
    for (const [index, text] of ['first', 'second', 'third'].entries()) {
      const answer = await api('POST', `/conversations/${own}/messages`, { text, agentId: agentIds[index] });
      expect(answer.status).toBe(202);
      ordered.push(answer.body.run.id);
    }
    expect((await api('POST', `/runs/${ordered[1]}/cancel`)).status).toBe(200);

    releaseStarts();
    const ended = await Promise.all([...runIds, ...ordered].map((runId) => harness.waitForRun(runId, 240_000)));
    expect(ended.map((detail) => detail.run.state)).toEqual([...runIds.map(() => 'completed'), 'completed', 'cancelled', 'completed']);
    expect(mostPreparing).toBe(START_CONCURRENCY);
    // The cancelled turn never started; the others of its conversation started in the order they were posted.
    expect(prepared.filter((runId) => ordered.includes(runId))).toEqual([ordered[0], ordered[2]]);
    expect(new Set(prepared).size).toBe(TURNS + 2);
    // Every completed run called the model: none ended without executing.
    expect(harness.model.requests.length).toBeGreaterThanOrEqual(TURNS + 2);
  }, 300_000);

  it("a turn's history is read when it starts, not while it is accepted, and holds the conversation before its message only", async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversationId = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'history at start' })).body.id as string;
    const first = await api('POST', `/conversations/${conversationId}/messages`, { text: 'first question' });
    expect((await harness.waitForRun(first.body.run.id, 60_000)).run.state).toBe('completed');

    // Every history read of this conversation, whichever method reads it.
    const reads: string[] = [];
    const messages = harness.server.running.app.messages as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of ['history', 'historyBefore']) {
      const original = messages[name];
      if (typeof original !== 'function') continue;
      messages[name] = function (this: unknown, ...args: unknown[]) {
        if (args[1] === conversationId) reads.push(name);
        return original.apply(this, args);
      };
    }
    // The conversation's next starts wait in their prepare stage until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    harness.server.running.app.executor.registerPrepareHook(async ({ scope }) => {
      if (scope.conversationId === conversationId) await released;
    });
    const [otherAgent] = Object.values(harness.agents).filter((agent) => agent.id !== first.body.run.agentId);
    let second, third;
    try {
      second = await api('POST', `/conversations/${conversationId}/messages`, { text: 'second question' });
      // Addressed to another agent by id: that agent's own turn, posted while the second waits to start.
      third = await api('POST', `/conversations/${conversationId}/messages`, { text: 'third question', agentId: otherAgent!.id });
      expect([second.status, third.status]).toEqual([202, 202]);
      // Both accepted, neither started: accepting read no history.
      expect(reads).toEqual([]);
    } finally {
      // Released however the checks went, so no held start keeps a slot from the tests after this one.
      release();
    }
    const ended = await Promise.all([second, third].map((answer) => harness.waitForRun(answer.body.run.id, 60_000)));
    expect(ended.map((detail) => detail.run.state)).toEqual(['completed', 'completed']);
    expect(reads.length).toBeGreaterThanOrEqual(2);
    const asked = (text: string) => harness.model.requests.find((request) => request.lastUserText === text)!;
    // The second turn's history ends before its message: the third, written before it started, is not in it.
    expect(asked('second question').allText).toContain('first question');
    expect(asked('second question').allText).not.toContain('third question');
    expect(asked('third question').allText).toContain('second question');
  }, 120_000);

  it("a turn's message and its run are committed together: when the run cannot be recorded, the message is not either", async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const conversationId = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'one commit' })).body.id as string;
    const { db } = (await harness.server.running.app.workspaces.handle(workspaceId)).database;
    // The store refuses this conversation's runs (a disk or constraint failure as the run is written).
    if (testDialect() === 'postgres') {
      await sql`create function refuse_runs_of_one_conversation() returns trigger language plpgsql as $$ begin if new.conversation_id = ${sql.lit(conversationId)} then raise exception 'runs refused'; end if; return new; end $$`.execute(db);
      await sql`create trigger refuse_runs_of_one_conversation before insert on runs for each row execute function refuse_runs_of_one_conversation()`.execute(db);
    } else {
      await sql`create trigger refuse_runs_of_one_conversation before insert on runs when new.conversation_id = ${sql.lit(conversationId)} begin select raise(abort, 'runs refused'); end`.execute(db);
    }
    try {
      const answer = await api('POST', `/conversations/${conversationId}/messages`, { text: 'never recorded' });
      expect(answer.status).toBe(500);
      expect((await api('GET', `/conversations/${conversationId}/messages`)).body.messages).toEqual([]);
    } finally {
      await sql`drop trigger refuse_runs_of_one_conversation${sql.raw(testDialect() === 'postgres' ? ' on runs' : '')}`.execute(db);
    }
    // With the store back, the conversation takes the turn: message and run.
    const answer = await api('POST', `/conversations/${conversationId}/messages`, { text: 'recorded' });
    expect(answer.status).toBe(202);
    expect((await harness.waitForRun(answer.body.run.id, 60_000)).run.state).toBe('completed');
    expect((await api('GET', `/conversations/${conversationId}/messages`)).body.messages.map((message: { content: string }) => message.content)).toContain('recorded');
  }, 120_000);

  it('where runs are queued for workers (an API process), a turn is answered before its enqueue, and one that cannot be queued ends failed', async () => {
    const { server, workspaceId, spaceId } = harness;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    // The job queue stands still until told: the answer cannot have waited for it.
    let queueDown!: (error: Error) => void;
    const queueAnswers = new Promise<void>((_resolve, reject) => (queueDown = reject));
    const handed: string[] = [];
    harness.server.running.app.executor.dispatchTo(async (_workspaceId, run) => {
      handed.push(run.runId);
      await queueAnswers;
    });
    const conversationId = (await api('POST', `/spaces/${spaceId}/conversations`, { title: 'for a worker' })).body.id as string;
    const answer = await api('POST', `/conversations/${conversationId}/messages`, { text: 'for a worker' });
    expect(answer.status).toBe(202);
    expect(answer.body.run.state).toBe('queued');
    const runId = answer.body.run.id as string;
    await expect.poll(() => handed, { timeout: 60_000 }).toEqual([runId]);
    queueDown(new Error('the queue is down'));
    await expect.poll(async () => (await api('GET', `/runs/${runId}`)).body.run, { timeout: 60_000 }).toMatchObject({ state: 'failed', error: 'the run could not be queued: the queue is down' });
  }, 120_000);
});
