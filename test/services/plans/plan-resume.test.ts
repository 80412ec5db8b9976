import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';
import type { TestServer } from '../../support/test-server.js';
import { pollUntil } from '../../support/wait-for.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const step = (key: string) => (request: ScriptedRequest) => request.lastUserText?.includes(`— ${key}:`) === true;
const PLAN = {
  goal: 'Ship it',
  nodes: [
    { key: 'one', title: 'First', description: 'first', dependsOn: [] },
    { key: 'two', title: 'Second', description: 'second', dependsOn: ['one'] },
    { key: 'three', title: 'Third', description: 'third', dependsOn: ['two'] },
  ],
};

const planOf = (server: TestServer, workspaceId: string, planId: string) => async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${planId}`)).body;

describe('resuming a stopped plan (PLAN-8)', () => {
  it('runs the stopped steps again, keeps the finished ones, and refuses what cannot be resumed', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    const base = `/api/workspaces/${workspaceId}/plans`;
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    await server.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversationId}/messages`, { text: '/plan ship it' });
    const plan = await pollUntil(async () => (await server.api('GET', `${base}?conversationId=${conversationId}`)).body.plans[0], (current) => current?.status === 'proposed');

    // A proposal is not stopped: nothing to resume.
    const early = await server.api('POST', `${base}/${plan.id}/resume`);
    expect(early.status).toBe(409);
    expect(early.body.error.field ?? early.body.error.message).toMatch(/planId|proposed/);

    fixture.model.scriptFor(step('one'), reply().text('first done'));
    const stepTwo = fixture.model.scriptFor(step('two'), reply().text('slow').hang());
    await server.api('POST', `${base}/${plan.id}/approve`);
    await pollUntil(planOf(server, workspaceId, plan.id), (current) => current.nodes[1].state === 'running');
    // Cancel while the step's model call hangs, so the re-run below gets the next reply.
    await pollUntil(async () => stepTwo.requests.length, (count) => count === 1);
    const firstTwoRun = (await planOf(server, workspaceId, plan.id)()).nodes[1].runId;
    expect((await server.api('POST', `${base}/${plan.id}/cancel`)).status).toBe(200);
    const stopped = await pollUntil(planOf(server, workspaceId, plan.id), (current) => current.nodes[1].state !== 'running');
    expect(stopped.status).toBe('cancelled');
    expect(stopped.nodes.map((node: any) => node.state)).toEqual(['done', 'cancelled', 'cancelled']);

    stepTwo.script(reply().text('second done'));
    fixture.model.scriptFor(step('three'), reply().text('third done'));
    const resumed = await server.api('POST', `${base}/${plan.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('executing');
    const finished = await pollUntil(planOf(server, workspaceId, plan.id), (current) => current.status !== 'executing');
    expect(finished.status).toBe('completed');
    expect(finished.nodes.map((node: any) => node.state)).toEqual(['done', 'done', 'done']);
    // Step one was kept (not run again); step two ran in a new run.
    expect(finished.nodes[0].runId).toBe(stopped.nodes[0].runId);
    expect(finished.nodes[1].runId).not.toBe(firstTwoRun);
    expect(fixture.model.requests.filter((request) => request.lastUserText?.includes('— one:'))).toHaveLength(1);
    const again = (await server.api('GET', `/api/workspaces/${workspaceId}/runs/${finished.nodes[1].runId}`)).body.run;
    expect(again.state).toBe('completed');

    // A completed plan has nothing to resume; an unknown plan is a 404 naming it.
    expect((await server.api('POST', `${base}/${plan.id}/resume`)).status).toBe(409);
    const missing = await server.api('POST', `${base}/plan_nope/resume`);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toMatch(/plan_nope/);
  });
});
