import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { planStepRequest, pollUntil, proposePlan } from '../../support/plan-server-fixtures.js';
import { reply } from '../../support/scripted-reply.js';

// PLAN-7 on ORC-4: approving a plan records it as an orchestration (one role, the planner; the steps
// are its sub-tickets) whose status follows the plan's engine run.

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const PLAN = {
  goal: 'Ship it',
  nodes: [
    { key: 'one', title: 'First', description: 'first', dependsOn: [] },
    { key: 'two', title: 'Second', description: 'second', dependsOn: ['one'] },
    { key: 'three', title: 'Third', description: 'third', dependsOn: ['one', 'two'] },
  ],
};

describe('an approved plan is an orchestration (PLAN-7, ORC-4)', () => {
  it('approval creates one orc_ record linked both ways; it follows the run through cancel and resume to completed', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    expect(plan.orchestrationId ?? null).toBeNull();
    expect((await api('GET', '/orchestrations')).body.orchestrations).toEqual([]);

    const first = fixture.model.scriptFor(planStepRequest('one'), reply().text('working').hang(), reply().text('one done'));
    fixture.model.scriptFor(planStepRequest('two'), reply().text('two done'));
    fixture.model.scriptFor(planStepRequest('three'), reply().text('three done'));
    const approved = await api('POST', `/plans/${plan.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.orchestrationId).toMatch(/^orc_/);
    const orchestrationId: string = approved.body.orchestrationId;

    const listed = (await api('GET', '/orchestrations')).body.orchestrations;
    expect(listed.map((orc: any) => [orc.id, orc.planId])).toEqual([[orchestrationId, plan.id]]);
    const executing = await pollUntil(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (orc) => orc.status === 'executing');
    expect(executing).toMatchObject({
      planId: plan.id,
      conversationId,
      orchestratorAgentId: plan.agentId,
      goal: 'Ship it',
      approvedRevision: 1,
      latestRevision: 1,
      pipelineRunId: approved.body.pipelineRunId,
      maxUsd: null,
      members: [{ roleKey: 'planner', agentId: plan.agentId, hired: false }],
    });
    expect(executing.decidedBy).toBeTruthy();
    expect(executing.proposal.roles).toEqual([{ roleKey: 'planner', title: 'Planner', agentId: plan.agentId }]);
    expect(executing.proposal.subTickets.map((ticket: any) => [ticket.key, ticket.roleKey, ticket.dependsOn])).toEqual([
      ['one', 'planner', []],
      ['two', 'planner', ['one']],
      ['three', 'planner', ['one', 'two']],
    ]);
    expect(executing.proposal.synthesis).toBeUndefined();

    // It was decided with the plan: an orchestration decision on it is refused and changes nothing.
    expect((await api('POST', `/orchestrations/${orchestrationId}/approve`, { revision: 1 })).status).toBe(409);
    expect((await api('POST', `/orchestrations/${orchestrationId}/reject`, {})).status).toBe(409);

    // Cancelling the plan cancels its record; resuming the plan brings the record back to executing.
    await pollUntil(async () => first.requests.length, (count) => count === 1);
    expect((await api('POST', `/plans/${plan.id}/cancel`)).status).toBe(200);
    await pollUntil(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (orc) => orc.status === 'cancelled');
    expect((await api('POST', `/plans/${plan.id}/resume`)).status).toBe(200);
    const planDone = await pollUntil(async () => (await api('GET', `/plans/${plan.id}`)).body, (current) => current.status !== 'executing');
    expect(planDone.status).toBe('completed');
    const finished = await pollUntil(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (orc) => orc.status === 'completed');
    expect(finished.pipelineRunId).toBe(approved.body.pipelineRunId);
    expect((await api('GET', `/plans/${plan.id}`)).body).toMatchObject({ status: 'completed', orchestrationId });
    // Still exactly one record for the plan.
    expect((await api('GET', '/orchestrations')).body.orchestrations.map((orc: any) => orc.id)).toEqual([orchestrationId]);
  });

  it('cancelling the orchestration cancels the plan it records', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    fixture.model.scriptFor(planStepRequest('one'), reply().text('working').hang());
    const approved = (await api('POST', `/plans/${plan.id}/approve`)).body;
    await pollUntil(async () => (await api('GET', `/orchestrations/${approved.orchestrationId}`)).body, (orc) => orc.status === 'executing');
    expect((await api('POST', `/orchestrations/${approved.orchestrationId}/cancel`, { reason: 'not now' })).status).toBe(200);
    const stopped = await pollUntil(async () => (await api('GET', `/plans/${plan.id}`)).body, (current) => current.status !== 'executing');
    expect(stopped.status).toBe('cancelled');
    expect((await api('GET', `/orchestrations/${approved.orchestrationId}`)).body).toMatchObject({ status: 'cancelled', reason: 'not now' });
  });
});
