import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveAgentState } from '../../src/services/agents/derive-agent-state.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server)).id;
});
afterAll(async () => {
  await server.dispose();
});

async function freshAgent(name: string): Promise<string> {
  return (await server.api('POST', `/api/workspaces/${workspaceId}/agents`, { name })).body.id;
}

async function stateOf(agentId: string): Promise<string> {
  const single = (await server.api('GET', `/api/workspaces/${workspaceId}/agents/${agentId}`)).body.state;
  const listed = (await server.api('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents.find((agent: any) => agent.id === agentId).state;
  expect(listed).toBe(single);
  return single;
}

async function db() {
  return (await server.running.app.workspaces.handle(workspaceId)).database.db;
}

describe('agent state is derived from run logs on every read (AG-3)', () => {
  it('neverRun without any run', async () => {
    expect(await stateOf(await freshAgent('never'))).toBe('neverRun');
  });

  it('running while a run is in progress; queued is never reported', async () => {
    const agentId = await freshAgent('worker');
    const queued = await server.running.app.runs.record(workspaceId, await db(), { agentId });
    expect(await stateOf(agentId)).toBe('idle');
    await server.running.app.runs.update(workspaceId, await db(), queued.id, { state: 'running' });
    expect(await stateOf(agentId)).toBe('running');
    await server.running.app.runs.update(workspaceId, await db(), queued.id, { state: 'completed' });
    expect(await stateOf(agentId)).toBe('idle');
  });

  it('failed when the last run errored or its liveness is dead', async () => {
    const agentId = await freshAgent('crasher');
    const run = await server.running.app.runs.record(workspaceId, await db(), { agentId, state: 'running' });
    await server.running.app.runs.update(workspaceId, await db(), run.id, { state: 'failed', error: 'boom' });
    expect(await stateOf(agentId)).toBe('failed');
    const next = await server.running.app.runs.record(workspaceId, await db(), { agentId, state: 'completed' });
    expect(await stateOf(agentId)).toBe('idle');
    await server.running.app.runs.update(workspaceId, await db(), next.id, { liveness: 'dead' });
    expect(await stateOf(agentId)).toBe('failed');
  });

  it.each(['blocked', 'stalled', 'looping'] as const)('blocked when the last run is %s', async (liveness) => {
    const agentId = await freshAgent(`waiting-${liveness}`);
    const run = await server.running.app.runs.record(workspaceId, await db(), { agentId, state: 'running' });
    await server.running.app.runs.update(workspaceId, await db(), run.id, { liveness });
    expect(await stateOf(agentId)).toBe('blocked');
  });

  it('the pure rule covers every combination in a fixed order', () => {
    expect(deriveAgentState({ newest: null, anyRunning: false })).toBe('neverRun');
    expect(deriveAgentState({ newest: { state: 'running', liveness: 'blocked' }, anyRunning: true })).toBe('blocked');
    expect(deriveAgentState({ newest: { state: 'failed', liveness: 'failed' }, anyRunning: true })).toBe('running');
    expect(deriveAgentState({ newest: { state: 'completed', liveness: 'ok' }, anyRunning: false })).toBe('idle');
    expect(deriveAgentState({ newest: { state: 'cancelled', liveness: 'ok' }, anyRunning: false })).toBe('idle');
  });
});
