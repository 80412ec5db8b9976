import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { SseClient, type ReceivedEvent } from '../support/sse-client.js';
import { freshTestDatabase } from '../support/test-database.js';
import { pollUntil } from '../support/plan-server-fixtures.js';

/**
 * WS-3, NF-SCALE, HAR-5, POL-7: two real `serve` processes, separate data roots, one
 * PostgreSQL database, behave as one server: a run executing in process 1 is watched through
 * process 2's SSE (in order, none lost or duplicated, Last-Event-ID replay from the shared events),
 * and controls sent to process 2 reach the run in process 1.
 */
let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let model: ScriptedModelServer;
let one: ServeProcess;
let two: ServeProcess;
let workspaceId: string;
let spaceId: string;
let conversationId: string;
const streams: SseClient[] = [];

const ws = (path: string) => `/api/workspaces/${workspaceId}${path}`;
const watch = async (server: ServeProcess, lastEventId?: string) => {
  const stream = await SseClient.open(`${server.url}${ws('/events')}`, {
    authorization: `Bearer ${server.token}`,
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  });
  streams.push(stream);
  return stream;
};
/** A conversation of its own per test, so a scripted matcher never sees another test's history. */
const newConversation = async () => (await one.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Main' })).body.id as string;
const ids = (events: ReceivedEvent[]) => events.map((event) => Number(event.id));

beforeAll(async () => {
  database = await freshTestDatabase();
  model = await startScriptedModelServer();
  const env = { ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: database.url };
  one = await startServeProcess(env, ['--no-default-workspace']);
  two = await startServeProcess(env, ['--no-default-workspace']);
  const created = await one.api('POST', '/api/workspaces', { name: 'Shared' });
  expect(created.status).toBe(201);
  workspaceId = created.body.id;
  await pollUntil(() => one.api('GET', ws('')), (response) => response.body.seeding === 'done');
  const space = await one.api('POST', ws('/spaces'), { name: 'Work' });
  spaceId = space.body.id;
  conversationId = await newConversation();
}, 180_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await Promise.all([one?.stop(), two?.stop()]);
  await model?.close();
  await database?.drop();
});

describe('two serve processes on one PostgreSQL database', () => {
  it('a run executing in process 1 is watched live through process 2, in order, none lost or duplicated, and replayed from Last-Event-ID', async () => {
    const watcherOnTwo = await watch(two);
    const watcherOnOne = await watch(one);
    model.script(reply().text('finished in process one'));
    const sent = await one.api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'do the thing' });
    expect(sent.status).toBe(202);
    const runId = sent.body.run.id as string;
    const ended = (event: ReceivedEvent) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.state === 'completed';
    await watcherOnTwo.waitFor(ended, 20_000);
    await watcherOnOne.waitFor(ended, 20_000);
    // Both processes serve the same committed sequence: same ids, same types, strictly increasing, no gap.
    // (A stream starts at the newest id its process had committed when it opened; compare from where both had started.)
    const last = Number(watcherOnTwo.events.find(ended)!.id);
    const first = Math.max(Number(watcherOnTwo.events[0]!.id), Number(watcherOnOne.events[0]!.id));
    const onTwo = watcherOnTwo.events.filter((event) => Number(event.id) >= first && Number(event.id) <= last);
    const onOne = watcherOnOne.events.filter((event) => Number(event.id) >= first && Number(event.id) <= last);
    expect(onTwo.map((event) => [event.id, event.event])).toEqual(onOne.map((event) => [event.id, event.event]));
    const seen = ids(onTwo);
    expect(new Set(seen).size).toBe(seen.length);
    seen.forEach((id, index) => index > 0 && expect(id).toBe(seen[index - 1]! + 1));
    expect(onTwo.some((event) => event.event === 'run.created' && event.data.data.id === runId)).toBe(true);
    expect(onTwo.some((event) => event.event === 'message.created')).toBe(true);

    // Last-Event-ID on the other process: exactly what followed that id, from the shared table.
    const from = onOne[1]!.id!;
    const replay = await watch(two, from);
    await replay.waitFor(ended, 10_000);
    // (The stream first says whether the resume was complete: a `stream.resumed` notice, without an id.)
    expect(replay.events[0]).toMatchObject({ event: 'stream.resumed', data: { complete: true } });
    const replayed = replay.events.filter((event) => event.id !== null && Number(event.id) <= Number(onTwo[onTwo.length - 1]!.id));
    expect(ids(replayed)).toEqual(seen.filter((id) => id > Number(from)));
  });

  it('cancel sent to process 2 cancels the run executing in process 1; a run no process executes is 404', async () => {
    const watcher = await watch(two);
    const hung = model.scriptFor('cancel me please', reply().text('working...').hang());
    const sent = await one.api('POST', ws(`/conversations/${await newConversation()}/messages`), { text: 'cancel me please' });
    const runId = sent.body.run.id as string;
    await pollUntil(async () => hung.requests.length, (count) => count > 0);
    // A control the owner refuses comes back with the owner's status and field.
    const notPaused = await two.api('POST', ws(`/runs/${runId}/resume`));
    expect(notPaused.status).toBe(409);
    expect(notPaused.body.error.field).toBe('runId');
    const cancelled = await two.api('POST', ws(`/runs/${runId}/cancel`));
    expect(cancelled.status).toBe(200);
    await watcher.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.state === 'cancelled', 15_000);
    const detail = await one.api('GET', ws(`/runs/${runId}`));
    expect(detail.body.run.state).toBe('cancelled');
    const again = await two.api('POST', ws(`/runs/${runId}/cancel`));
    expect(again.status).toBe(404);
    expect(again.body.error.field).toBe('runId');
  });

  it('a tool-call approval decided through process 2 wakes the run waiting in process 1 (POL-7)', async () => {
    // An operator watches through each process (the gate asks only when someone is connected to the executing one).
    await watch(one);
    const watcher = await watch(two);
    const rule = await two.api('POST', ws('/policy/rules'), { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    expect(rule.status).toBe(201);
    model.scriptFor('approve across', reply().tool('bash', { command: 'touch crossed.txt' }), reply().text('done after approval'));
    const sent = await one.api('POST', ws(`/conversations/${await newConversation()}/messages`), { text: 'approve across' });
    const runId = sent.body.run.id as string;
    const requested = await watcher.waitFor((event) => event.event === 'approval.requested' && event.data.data.runId === runId, 15_000);
    const decided = await two.api('POST', ws(`/approvals/${requested.data.data.id}/decision`), { decision: 'approve' });
    expect(decided.status).toBe(200);
    await watcher.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.state === 'completed', 15_000);
    const detail = await one.api('GET', ws(`/runs/${runId}`));
    expect(detail.body.toolCalls[0]).toMatchObject({ decision: 'ask', executed: true });
  });

  it('/metrics of the watching process reports the commit-to-delivery lag as a histogram with p50 and p99', async () => {
    const metrics = await fetch(`${two.url}/metrics`, { headers: { authorization: `Bearer ${two.token}` } });
    const text = await metrics.text();
    expect(text).toContain('# TYPE control_center_event_lag_seconds histogram');
    const count = Number(/^control_center_event_lag_seconds_count (\d+)$/m.exec(text)![1]);
    expect(count).toBeGreaterThan(0);
    expect(text).toMatch(/^control_center_event_lag_seconds_bucket\{le="\+Inf"\} \d+$/m);
    expect(text).toMatch(/^control_center_event_lag_quantile_seconds\{quantile="0.99"\} [0-9.e-]+$/m);
  });
});
