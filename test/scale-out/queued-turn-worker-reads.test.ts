import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { isWorkerClient, postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { reply } from '../support/scripted-model-server.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';

/**
 * NF-SCALE: what a worker reads for a conversation's next tool turn. Its agent comes through the
 * configuration pin without the AG-3 read of the agent's runs (nothing in a run reads that state),
 * and the history kept from the previous turn is extended by one statement that brings the previous
 * run's log with the timeline since. The turn still sees that run's tool call and result. The run's
 * end and its answer message are one statement too, and a conversation whose checkout is a plain
 * folder (its space has no repository) has no checkout record read at the run's end.
 * An API-role and a worker-role control center in this process on one PostgreSQL database; the
 * worker's pools make clients of a subclass, so the statements it sends are told from the API's.
 * Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  // The worker's pools make WorkerClients: its statements are told from the API's.
  pair = await startDispatchPair({ workspaceName: 'Worker reads', worker: { jobLeaseMs: 3_000, queuePollMs: 200 }, markWorkerClients: true });
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

/** The statements the worker's clients send while `work` runs, whitespace collapsed. */
function workerStatementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  return statementsDuring(work, isWorkerClient);
}

/** Posts a turn through the API process and waits until the worker has completed its run; returns the run's id. */
async function turn(conversationId: string, text: string): Promise<string> {
  const { api, workspaceId } = pair;
  const runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
  await pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === 'completed', 30_000);
  return runId;
}

describe.skipIf(!postgresEnabled)("a worker's reads for a conversation's first turn", () => {
  it("reads the history's compaction bound, rewinds, images and timeline in one statement; the turn still sees its prompt and answers", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const conversation = model.scriptFor('first turn reads', reply().tool('todo', { todos: [{ content: 'a first todo', status: 'pending' }] }), reply().text('first turn answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'First turn reads' })).id;

    const sent = await workerStatementsDuring(() => turn(conversationId, 'first turn reads, the prompt'));
    // What the history is built under (rewinds, images), where its newest compaction is (a run's
    // log) and the timeline since: one read, and no run's log is read besides (none came before).
    const historyReads = sent.filter(
      (text) => text.startsWith('select') && (text.includes('from "conversation_rewinds"') || text.includes('from "run_events"') || text.includes(`'message' as "kind"`)),
    );
    expect(historyReads).toHaveLength(1);
    expect(historyReads[0]).toMatch(/^select 'message' as "kind"/);
    expect(historyReads[0]).toContain('from "conversation_rewinds"');
    expect(historyReads[0]).toContain('from "message_attachments"');
    expect(historyReads[0]).toContain('from "run_events"');

    const answers = (await api.messages.list(workspaceId, conversationId)).filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(answers).toEqual(['first turn answer']);
    expect(conversation.requests).toHaveLength(2);
    expect(JSON.stringify(conversation.requests[0]!.body)).toContain('first turn reads, the prompt');
  }, 120_000);
});

describe.skipIf(!postgresEnabled)("a worker's reads for a conversation's next tool turn", () => {
  it("reads no AG-3 state, the previous run's log with the history's timeline and no record of a folder checkout, and writes its end with its answer; the turn sees that run's tool call", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const toolTurn = (todo: string, answer: string) => [reply().tool('todo', { todos: [{ content: todo, status: 'pending' }] }), reply().text(answer)];
    const conversation = model.scriptFor('worker reads', ...toolTurn('first todo item', 'first answer'), ...toolTurn('second todo item', 'second answer'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Worker reads' })).id;
    await turn(conversationId, 'worker reads, turn one');

    const sent = await workerStatementsDuring(() => turn(conversationId, 'worker reads, turn two'));
    expect(sent.filter((text) => text.includes('"any_running"'))).toEqual([]);
    const logReads = sent.filter((text) => text.startsWith('select') && text.includes('from "run_events"'));
    expect(logReads).toHaveLength(1);
    expect(logReads[0]).toMatch(/^select 'message' as "kind"/);
    expect(logReads[0]).toContain('union all');
    expect(sent.filter((text) => text.includes('from "checkouts"'))).toEqual([]);
    // The end and the answer: one statement, no insert of the message of its own.
    expect(sent.filter((text) => text.startsWith('insert into "messages"'))).toEqual([]);
    const ends = sent.filter((text) => text.includes('update "runs" set "state"') && text.includes('"ended_at"'));
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatch(/^with w0 as \(insert into "messages"/);
    const answers = (await api.messages.list(workspaceId, conversationId)).filter((message) => message.role === 'assistant').map((message) => message.content);
    expect(answers).toEqual(['first answer', 'second answer']);

    // The second turn's first model call carries the first turn's tool call, its result and answer.
    const secondTurn = conversation.requests.filter((request) => request.allText.includes('worker reads, turn two'));
    expect(secondTurn.length).toBeGreaterThan(0);
    const body = JSON.stringify(secondTurn[0]!.body);
    expect(body).toContain('first todo item');
    expect(body).toContain('first answer');
    expect(body).not.toContain('second todo item');
  }, 120_000);

  it("reads the history's rewinds and images with its timeline, and stores the sandbox with the run's end: no statement of their own; the sandbox is still announced while the run runs", async () => {
    const { api, model, workspaceId, spaceId } = pair;
    const toolTurn = (todo: string, answer: string) => [reply().tool('todo', { todos: [{ content: todo, status: 'pending' }] }), reply().text(answer)];
    model.scriptFor('marks and sandbox', ...toolTurn('a todo', 'one'), ...toolTurn('another todo', 'two'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Marks and sandbox' })).id;
    await turn(conversationId, 'marks and sandbox, turn one');

    const announced: Array<{ runId: string; state: string; sandbox: string | null }> = [];
    const unsubscribe = api.events.subscribe(workspaceId, (event) => {
      if (event.type === 'run.updated') announced.push({ runId: event.data.id, state: event.data.state, sandbox: event.data.sandbox });
    });
    let runId = '';
    let sent: string[];
    try {
      sent = await workerStatementsDuring(async () => (runId = await turn(conversationId, 'marks and sandbox, turn two')));
      // The worker's events reach this process by the cross-process relay, after the rows are visible.
      await pollUntil(async () => announced, (events) => events.some((event) => event.runId === runId && event.state === 'completed'), 10_000);
    } finally {
      unsubscribe();
    }
    // The unrestored rewinds and the messages with images come in the timeline's statement.
    const marks = sent.filter((text) => text.includes('from "conversation_rewinds"'));
    expect(marks).toHaveLength(1);
    expect(marks[0]).toContain('from "run_events"');
    // The run's row is written twice: its start (with its read, a written-out statement), and its end with the sandbox.
    const runWrites = sent.filter((text) => /update "?runs"? set/.test(text));
    expect(runWrites).toHaveLength(2);
    expect(runWrites.filter((text) => text.includes('"sandbox"'))).toHaveLength(1);
    expect(runWrites.find((text) => text.includes('"sandbox"'))).toContain('"ended_at"');
    const stored = await findRun(await pair.db(), runId);
    expect(stored?.sandbox).toBeTruthy();
    // Announced while the run was running, as when it was written on its own.
    expect(announced.some((event) => event.runId === runId && event.state === 'running' && event.sandbox === stored?.sandbox)).toBe(true);
  }, 120_000);
});
