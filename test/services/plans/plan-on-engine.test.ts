import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { startScriptedModelServer } from '../../support/scripted-model-server.js';
import { planStepRequest, pollUntil, proposePlan } from '../../support/plan-server-fixtures.js';
import { reply } from '../../support/scripted-reply.js';
import { createSeededWorkspace, makeDataRoot, startTestServer } from '../../support/test-server.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const step = planStepRequest;
const poll = pollUntil;
const PLAN = {
  goal: 'Ship it',
  nodes: [
    { key: 'one', title: 'First', description: 'first', dependsOn: [] },
    { key: 'Two.b', title: 'Second', description: 'second', dependsOn: ['one'] },
    { key: 'three', title: 'Third', description: 'third', dependsOn: ['Two.b'] },
  ],
};

describe('plans run on the pipeline engine (PLAN-7, PLAN-8, PIPE-1)', () => {
  it('approval compiles the plan into a one-role pipeline run of planStep nodes; the plan view is that run', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    expect(plan.pipelineRunId).toBeNull();
    fixture.model.scriptFor(step('one'), reply().text('one done'));
    fixture.model.scriptFor(step('Two.b'), reply().text('two done'));
    fixture.model.scriptFor(step('three'), reply().text('three done'));
    const approved = await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.pipelineRunId).toMatch(/^pr_/);
    const finished = await poll(
      async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body,
      (current) => current.status !== 'executing',
    );
    expect(finished.status).toBe('completed');
    const run = (await server.api('GET', `/api/workspaces/${workspaceId}/pipeline-runs/${approved.body.pipelineRunId}`)).body;
    expect(run).toMatchObject({ status: 'completed', source: { kind: 'plan', id: plan.id }, progress: { settled: 3, total: 3 } });
    expect(run.nodes.map((node: any) => [node.key, node.type, node.state, node.dependsOn])).toEqual([
      ['one', 'planStep', 'done', []],
      ['Two.b', 'planStep', 'done', ['one']],
      ['three', 'planStep', 'done', ['Two.b']],
    ]);
    // One role: the planner ran every step, each in its own agent run, recorded on both views.
    const agentRuns = await Promise.all(run.nodes.map(async (node: any) => (await server.api('GET', `/api/workspaces/${workspaceId}/runs/${node.agentRunId}`)).body.run));
    expect(new Set(agentRuns.map((agentRun: any) => agentRun.agentId))).toEqual(new Set([plan.agentId]));
    expect(agentRuns.every((agentRun: any) => agentRun.conversationId === conversationId)).toBe(true);
    expect(finished.nodes.map((node: any) => node.runId)).toEqual(run.nodes.map((node: any) => node.agentRunId));
    // The tickets followed the steps.
    const tickets = (await server.api('GET', `/api/workspaces/${workspaceId}/tickets`)).body;
    const planTickets = (tickets.tickets ?? tickets).filter((ticket: any) => finished.nodes.some((node: any) => node.ticketId === ticket.id));
    expect(planTickets.map((ticket: any) => ticket.status)).toEqual(['done', 'done', 'done']);
  });

  it('an agent run stopped from the runs API cancels its step and blocks the steps after it', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    fixture.model.scriptFor(step('one'), reply().text('working').hang());
    await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/approve`);
    const running = await poll(
      async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body,
      (current) => current.nodes[0].state === 'running',
    );
    expect((await server.api('POST', `/api/workspaces/${workspaceId}/runs/${running.nodes[0].runId}/cancel`)).status).toBe(200);
    const final = await poll(
      async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body,
      (current) => current.status !== 'executing',
    );
    expect(final.status).toBe('cancelled');
    expect(final.nodes.map((node: any) => node.state)).toEqual(['cancelled', 'blocked', 'blocked']);
  });

  it('a step interrupted by two restarts in a row is not started a third time (PLAN-8: at most twice)', async () => {
    const model = await startScriptedModelServer();
    const dataRoot = await makeDataRoot();
    let server = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
    try {
      const workspace = await createSeededWorkspace(server, 'Restarts');
      const space = await server.api('POST', `/api/workspaces/${workspace.id}/spaces`, { name: 'Work' });
      const conversation = await server.api('POST', `/api/workspaces/${workspace.id}/spaces/${space.body.id}/conversations`, {});
      model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
      const plan = await proposePlan(server, workspace.id, conversation.body.id);
      const hung = model.scriptFor(step('one'), reply().text('slow').hang(), reply().text('slow again').hang());
      await server.api('POST', `/api/workspaces/${workspace.id}/plans/${plan.id}/approve`);
      await poll(async () => hung.requests.length, (count) => count === 1);
      // A graceful stop (the data root stays): the step in flight stays recorded as running.
      await server.stop();

      server = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
      await poll(async () => hung.requests.length, (count) => count === 2);
      const again = (await server.api('GET', `/api/workspaces/${workspace.id}/plans/${plan.id}`)).body;
      expect(again.status).toBe('executing');
      expect(again.nodes[0].state).toBe('running');
      await server.stop();

      server = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
      const final = await poll(
        async () => (await server.api('GET', `/api/workspaces/${workspace.id}/plans/${plan.id}`)).body,
        (current) => current.status !== 'executing',
      );
      expect(final.status).toBe('failed');
      expect(final.nodes.map((node: any) => node.state)).toEqual(['failed', 'blocked', 'blocked']);
      expect(final.nodes[0].error).toMatch(/too many times/);
      expect(hung.requests).toHaveLength(2);
    } finally {
      await server.dispose();
      await model.close();
    }
  });
});
