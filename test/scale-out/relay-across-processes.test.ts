import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { reply, startScriptedModelServer } from '../support/scripted-model-server.js';
import type { ScriptedRequest } from '../support/scripted-reply.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { startWorkerProcess } from '../support/serve-process.js';
import { useApiProcessCluster } from '../support/api-process-cluster.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * RLY-6 across processes (SPEC §15): relay_tool called by a turn on one worker acts on a
 * conversation another worker holds. One `serve --role api` and two workers, real child processes on
 * one PostgreSQL database, each worker with its own scripted model server (who answers tells where a
 * turn ran). `send` starts the other conversation's turn on the worker holding it (its checkout),
 * and `stop` stops that turn there.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

const cluster = useApiProcessCluster(enabled);
const api = (method: string, path: string, body?: unknown) => cluster().apiProcess.api(method, path, body);
const turnOf = (marker: string) => (request: ScriptedRequest) => request.lastUserText?.includes(marker) === true;

async function freshProcesses(): Promise<number> {
  const client = new pg.Client({ connectionString: cluster().database.url });
  await client.connect();
  try {
    // Beaten within the last second: alive, and not just short of its lease.
    return (await client.query(`select 1 from cc_pgboss.cc_processes where heartbeat_at > now() - interval '1 second'`)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

describe.skipIf(!enabled)('relay_tool across processes (RLY-6, SPEC §15)', () => {
  it('a turn on one worker sends to and stops a conversation held by the other worker: the turn runs and stops there', async () => {
    const workerModels = [await startScriptedModelServer(), await startScriptedModelServer()];
    cluster().models.push(...workerModels);
    const workers: ChildProcess[] = [];
    for (const model of workerModels) {
      const root = await makeDataRoot();
      cluster().roots.push(root);
      workers.push(await startWorkerProcess(['--data-dir', root, '--grace-seconds', '0'], { ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: cluster().database.url }));
    }
    cluster().children.push(...workers);
    const ws = (await api('POST', '/api/workspaces', { name: 'Relay' })).body.id as string;
    await pollUntil(() => api('GET', `/api/workspaces/${ws}`), (response) => response.body.seeding === 'done', 60_000);
    const conversation = async (name: string) => {
      const space = (await api('POST', `/api/workspaces/${ws}/spaces`, { name })).body.id as string;
      return (await api('POST', `/api/workspaces/${ws}/spaces/${space}/conversations`, { title: name })).body.id as string;
    };
    const post = async (conversationId: string, text: string) => {
      const sent = await api('POST', `/api/workspaces/${ws}/conversations/${conversationId}/messages`, { text });
      expect(sent.status).toBe(202);
      return sent.body.run.id as string;
    };
    const ended = (runId: string) =>
      pollUntil(async () => (await api('GET', `/api/workspaces/${ws}/runs/${runId}`)).body.run, (run) => run.state !== 'queued' && run.state !== 'running', 60_000);

    // The target conversation's first turn: whichever worker runs it holds the conversation from now on.
    const target = await conversation('Target');
    const warmups = workerModels.map((model) => model.scriptFor(turnOf('target warm-up'), reply().text('ready')));
    expect((await ended(await post(target, 'target warm-up'))).state).toBe('completed');
    const holder = warmups.findIndex((warmup) => warmup.requests.length > 0);
    const other = 1 - holder;

    // The caller's first turn on the other worker: the holder is paused (SIGSTOP) while it is claimed.
    const caller = await conversation('Caller');
    workerModels[other]!.scriptFor(turnOf('caller warm-up'), reply().text('ready'));
    workers[holder]!.kill('SIGSTOP');
    try {
      expect((await ended(await post(caller, 'caller warm-up'))).state).toBe('completed');
    } finally {
      workers[holder]!.kill('SIGCONT');
    }
    // Both beating again, so the holder is alive for the caller's worker when it looks.
    await pollUntil(freshProcesses, (count) => count === 2, 30_000);

    // send: the caller (on the other worker) sends; the target's turn runs on the holder and hangs there.
    const relayed = workerModels[holder]!.scriptFor(turnOf('relayed hello'), reply().text('on it').hang());
    const sendTurn = workerModels[other]!.scriptFor(turnOf('caller sends'), reply().tool('relay_tool', { action: 'send', conversationId: target, text: 'relayed hello' }), reply().text('sent'));
    expect((await ended(await post(caller, 'caller sends'))).state).toBe('completed');
    expect(sendTurn.requests.at(-1)!.toolResults[0]).toMatchObject({ isError: false });
    expect(sendTurn.requests.at(-1)!.toolResults[0]!.content).toContain(`Sent to ${target}`);
    await pollUntil(async () => relayed.requests.length, (count) => count > 0, 60_000);
    expect(workerModels[other]!.requests.filter(turnOf('relayed hello'))).toHaveLength(0);
    const targetRun = (await api('GET', `/api/workspaces/${ws}/runs?conversationId=${target}&state=running`)).body.runs[0].id as string;

    // stop: the caller's next turn (still on the other worker) stops the target's turn on the holder.
    const stopTurn = workerModels[other]!.scriptFor(turnOf('caller stops'), reply().tool('relay_tool', { action: 'stop', conversationId: target }), reply().text('stopped'));
    expect((await ended(await post(caller, 'caller stops'))).state).toBe('completed');
    expect(stopTurn.requests.at(-1)!.toolResults[0]!.content).toBe(`Stopped ${targetRun} in ${target}.`);
    expect((await ended(targetRun)).state).toBe('cancelled');
  }, 240_000);
});
