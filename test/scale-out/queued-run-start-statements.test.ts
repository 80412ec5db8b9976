import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { postgresEnabled, startDispatchPair, type DispatchPair } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';
import { reply } from '../support/scripted-model-server.js';

/**
 * NF-SCALE: a worker starting a queued run reads the run row and the configuration's version (the
 * pin its reads of agent, settings, space… are served under) in one statement, not two round trips.
 * An agent edited through the API process between two turns still reaches the worker's next run.
 * An API-role and a worker-role control center in this process on one PostgreSQL database; every
 * statement node-postgres sends is seen here. Runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
let pair: DispatchPair;

beforeAll(async () => {
  if (!postgresEnabled) return;
  pair = await startDispatchPair({ workspaceName: 'Queued run start', worker: { jobLeaseMs: 3_000, queuePollMs: 200 } });
}, 120_000);

afterAll(async () => {
  await pair?.close();
});

/** Posts a turn through the API process, waits until the worker has completed its run; its agent. */
async function turn(conversationId: string, text: string): Promise<string> {
  const { api, workspaceId } = pair;
  const runId = (await api.turns.post(workspaceId, conversationId, { text }, 'op_test')).run!.id;
  const run = await pollUntil(async () => findRun(await pair.db(), runId), (found) => found?.state === 'completed', 30_000);
  return run!.agentId;
}

describe.skipIf(!postgresEnabled)("a queued run's start on a worker", () => {
  it('reads the run row and the configuration version in one statement; an agent edited between two turns reaches the next run', async () => {
    const { api, model, workspaceId, spaceId } = pair;
    model.scriptFor('pinned start', reply().text('before the edit'), reply().text('after the edit'));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Pinned start' })).id;
    let agentId = '';
    const sent = await statementsDuring(async () => (agentId = await turn(conversationId, 'pinned start, turn one')));
    const versionReads = sent.filter((text) => text.includes('"config_version"'));
    expect(versionReads).toHaveLength(1);
    expect(versionReads[0]).toMatch(/^select "runs"\.\*, \(select "version" from "config_version"/);

    await api.agents.update(workspaceId, agentId, { persona: 'Persona written between the turns.' });
    await turn(conversationId, 'pinned start, turn two');
    const requests = model.requests.map((request) => JSON.stringify(request));
    const before = requests.filter((request) => request.includes('pinned start, turn one') && !request.includes('turn two')).join('\n');
    expect(before).toContain('pinned start, turn one');
    expect(before).not.toContain('Persona written between the turns.');
    expect(requests.filter((request) => request.includes('pinned start, turn two')).join('\n')).toContain('Persona written between the turns.');
  }, 120_000);
});
