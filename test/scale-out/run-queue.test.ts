import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { SseClient } from '../support/sse-client.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * NF-SCALE, AG-5, POL-7: agent runs through the `runs` queue, with real child processes
 * on one PostgreSQL database — one `serve --role api`, two `worker`s with their own data roots, each
 * worker talking to its own scripted model server (so the test knows which worker executed a run).
 * - a message posted to the API process is queued and executed by a worker; the next turn of the
 *   same conversation goes to the same worker (affinity to its checkout);
 * - `kill -9` of the worker executing a run: the run is marked failed/dead by the survivor, and the
 *   conversation's next turn (queued for the dead worker) is executed by the survivor;
 * - a plain `serve` started on the shared database leaves a live worker's running run alone;
 * - a tool-call approval whose process was killed still expires at its deadline (applied by a worker).
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
const roots: string[] = [];
const children: ChildProcess[] = [];
const models: ScriptedModelServer[] = [];
const streams: SseClient[] = [];

interface Started {
  child: ChildProcess;
  output: string;
}

/** Starts the CLI with `env` added and resolves once `ready` appears on its stdout. */
function startCli(args: string[], ready: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, CONTROL_CENTER_DATABASE_URL: database.url } });
  children.push(child);
  const started = { child, output: '' };
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      started.output += chunk.toString();
      if (started.output.includes(ready)) resolve(started);
    });
    child.stderr!.on('data', (chunk: Buffer) => (started.output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`${args[0]} exited with ${code}: ${started.output}`)));
  });
}

/** A real `serve` on the shared database (its data root is removed at the end). */
async function startServe(env: Record<string, string>, args: string[]): Promise<ServeProcess> {
  const started = await startServeProcess({ ...env, CONTROL_CENTER_DATABASE_URL: database.url }, [...args, '--no-default-workspace']);
  children.push(started.child);
  roots.push(started.dataRoot);
  return started;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

let apiProcess: ServeProcess;
let workspaceId: string;
let spaceId: string;
/** The model servers of the API process (must never be called) and of the two workers. */
let apiModel: ScriptedModelServer;
let workerModels: ScriptedModelServer[];
let workers: Started[];
let workerRoots: string[];

const ws = (path: string) => `/api/workspaces/${workspaceId}${path}`;
const api = (method: string, path: string, body?: unknown) => apiProcess.api(method, path, body);
const newConversation = async () => (await api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Queued' })).body.id as string;
const runOf = async (runId: string) => (await api('GET', ws(`/runs/${runId}`))).body.run as { state: string; liveness: string; error: string | null };
const waitForRun = (runId: string, done: (run: { state: string; liveness: string }) => boolean) => pollUntil(() => runOf(runId), done, 60_000);
/** Which worker's model server answered requests whose text includes `marker`. */
const servedBy = (marker: string) => workerModels.map((model) => model.requests.filter((request) => JSON.stringify(request).includes(marker)).length);

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  apiModel = await startScriptedModelServer();
  workerModels = [await startScriptedModelServer(), await startScriptedModelServer()];
  models.push(apiModel, ...workerModels);
  workerRoots = [await makeDataRoot(), await makeDataRoot()];
  roots.push(...workerRoots);
  apiProcess = await startServe(apiModel.providerEnv, ['--role', 'api']);
  workers = await Promise.all(
    workerRoots.map((root, index) => startCli(['worker', '--data-dir', root, '--lease-seconds', '3', '--grace-seconds', '0'], 'claiming work', workerModels[index]!.providerEnv)),
  );
  workspaceId = (await api('POST', '/api/workspaces', { name: 'Queued runs' })).body.id;
  await pollUntil(() => api('GET', ws('')), (response) => response.body.seeding === 'done', 60_000);
  spaceId = (await api('POST', ws('/spaces'), { name: 'Work' })).body.id;
}, 180_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)));
  for (const model of models) await model.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
  if (enabled) await database.drop();
});

async function defaultAgentName(): Promise<string> {
  const space = (await api('GET', ws(`/spaces/${spaceId}`))).body as { defaultAgentId: string };
  return ((await api('GET', ws(`/agents/${space.defaultAgentId}`))).body as { name: string }).name;
}

describe.skipIf(!enabled)('agent runs through the runs queue', () => {
  let victim = -1;

  it('a message posted to the API process is queued, executed by a worker, and the conversation sticks to that worker', async () => {
    for (const model of workerModels) model.scriptFor('sticky turn', reply().text('first answer'), reply().text('second answer'));
    const conversationId = await newConversation();
    const sent = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'sticky turn one' });
    expect(sent.status).toBe(202);
    expect(sent.body.run.state).toBe('queued');
    await waitForRun(sent.body.run.id, (run) => run.state === 'completed');
    const [first0, first1] = servedBy('sticky turn one');
    expect(first0! + first1!).toBe(1);
    const holder = first0 === 1 ? 0 : 1;

    const second = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'sticky turn two' });
    await waitForRun(second.body.run.id, (run) => run.state === 'completed');
    // Affinity: the same worker, never the other one, and never the API process.
    expect(servedBy('sticky turn two')[holder]).toBe(1);
    expect(servedBy('sticky turn two')[1 - holder]).toBe(0);
    expect(apiModel.requests).toHaveLength(0);
    const messages = (await api('GET', ws(`/conversations/${conversationId}/messages`))).body.messages as Array<{ content: string }>;
    expect(messages.map((message) => message.content)).toEqual(expect.arrayContaining(['first answer', 'second answer']));
  });

  it('an agent edited and a setting changed through the API process between two turns are seen by the worker\'s next run (its kept reads are versioned)', async () => {
    for (const model of workerModels) model.scriptFor('edited between', reply().text('before the edit'), reply().text('after the edit'));
    const conversationId = await newConversation();
    const first = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'edited between, turn one' });
    await waitForRun(first.body.run.id, (run) => run.state === 'completed');
    const edited = await api('PATCH', ws(`/agents/${first.body.run.agentId as string}`), { persona: 'Persona written between the turns.' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await api('PATCH', ws('/settings'), { delegationDepth: 1 })).status).toBe(200);
    const second = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'edited between, turn two' });
    await waitForRun(second.body.run.id, (run) => run.state === 'completed');
    const requests = workerModels.flatMap((model) => model.requests).map((request) => JSON.stringify(request));
    // The second turn's request carries the first turn in its history.
    const before = requests.filter((request) => request.includes('edited between, turn one') && !request.includes('edited between, turn two')).join('\n');
    const after = requests.filter((request) => request.includes('edited between, turn two')).join('\n');
    expect(before).not.toContain('Persona written between the turns.');
    expect(before).toContain('"name":"task"');
    // The same worker ran both (affinity), so its reads were kept between them: the edit bumped their version.
    expect(after).toContain('Persona written between the turns.');
    expect(after).not.toContain('"name":"task"');
    await api('PATCH', ws('/settings'), { delegationDepth: 3 });
  }, 120_000);

  it('kill -9 of the worker executing a run: the run becomes failed/dead, the conversation\'s next turn runs on the survivor', async () => {
    // First: the next turn's request also carries the hanging turn in its history, and matchers are tried in creation order.
    for (const model of workerModels) model.scriptFor('after the kill', reply().text('the survivor answers'));
    const hanging = workerModels.map((model) => model.scriptFor('hang on this worker', reply().text('working').hang()));
    const conversationId = await newConversation();
    const sent = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'hang on this worker' });
    const runId = sent.body.run.id as string;
    victim = await pollUntil(async () => hanging.findIndex((conversation) => conversation.requests.length > 0), (index) => index >= 0, 60_000);
    expect((await runOf(runId)).state).toBe('running');
    await kill9(workers[victim]!.child);

    // Queued while the dead worker still looks alive: it is queued for that worker, and the survivor takes it once the worker is known dead.
    // Addressed by name, so it is a turn of its own: a plain message would go to the going turn (HAR-5).
    const next = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: `@${await defaultAgentName()} after the kill` });
    const dead = await waitForRun(runId, (run) => run.state !== 'running');
    expect(dead).toMatchObject({ state: 'failed', liveness: 'dead' });
    await waitForRun(next.body.run.id, (run) => run.state === 'completed');
    expect(servedBy('after the kill')[1 - victim]).toBeGreaterThan(0);
    expect(servedBy('after the kill')[victim]).toBe(0);
  }, 120_000);

  it('a plain serve started on the shared database leaves the live worker\'s running run alone (AG-5 on a shared store)', async () => {
    const survivor = 1 - victim;
    const hanging = workerModels[survivor]!.scriptFor('keep running', reply().text('still working').hang());
    const conversationId = await newConversation();
    const sent = await api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'keep running' });
    const runId = sent.body.run.id as string;
    await pollUntil(async () => hanging.requests.length, (count) => count > 0, 60_000);
    const plainModel = await startScriptedModelServer();
    models.push(plainModel);
    await startServe(plainModel.providerEnv, []);
    // Its start-up recovery ran before it listened: a run of a live process is not an orphan.
    expect(await runOf(runId)).toMatchObject({ state: 'running', liveness: 'ok' });
    const cancelled = await api('POST', ws(`/runs/${runId}/cancel`));
    expect(cancelled.status).toBe(200);
    await waitForRun(runId, (run) => run.state === 'cancelled');
  }, 120_000);

  it('a tool-call approval whose process was killed expires at its deadline, applied by a worker (POL-7)', async () => {
    const gateModel = await startScriptedModelServer();
    models.push(gateModel);
    // A plain serve executes runs posted to it in-process; an operator watches it, so its gate asks.
    const gate = await startServe(gateModel.providerEnv, []);
    const stream = await SseClient.open(`${gate.url}${ws('/events')}`, { authorization: `Bearer ${gate.token}` });
    streams.push(stream);
    expect((await api('PATCH', ws('/settings'), { approvalTimeoutSeconds: 5 })).status).toBe(200);
    expect((await api('POST', ws('/policy/rules'), { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' })).status).toBe(201);
    gateModel.scriptFor('ask then die', reply().tool('bash', { command: 'touch gated.txt' }), reply().text('never reached'));
    const conversationId = await newConversation();
    const sentAt = Date.now();
    const sent = await gate.api('POST', ws(`/conversations/${conversationId}/messages`), { text: 'ask then die' });
    expect(sent.status).toBe(202);
    const runId = sent.body.run.id as string;
    const requested = await stream.waitFor((event) => event.event === 'approval.requested' && event.data.data.runId === runId, 30_000);
    const approvalId = requested.data.data.id as string;
    await kill9(gate.child);

    const approvalOf = async () => ((await api('GET', ws(`/approvals?conversationId=${conversationId}`))).body.approvals as Array<{ id: string; status: string }>).find((approval) => approval.id === approvalId);
    const expired = (await pollUntil(approvalOf, (approval) => approval?.status !== 'pending', 60_000)) as unknown as { status: string; reason: string; decidedAt: string };
    expect(expired).toMatchObject({ status: 'expired', reason: 'no operator decided before the approval timed out' });
    // Not before its deadline.
    expect(Date.parse(expired.decidedAt)).toBeGreaterThanOrEqual(sentAt + 5_000);
    // The killed process's run is an orphan: declared dead by a live process.
    expect(await waitForRun(runId, (run) => run.state !== 'running' && run.state !== 'queued')).toMatchObject({ state: 'failed', liveness: 'dead' });
  }, 120_000);
});
