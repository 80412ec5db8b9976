/**
 * What a ticket waits on (the board's "waiting on N"): its dependencies that are not done, computed
 * by the server over real HTTP. A plan's step tickets name their dependencies by ticket id, and a
 * finished step no longer blocks the steps after it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { planStepRequest, pollUntil, proposePlan } from '../../support/plan-server-fixtures.js';
import { reply } from '../../support/scripted-reply.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const PLAN = {
  goal: 'Ship it',
  nodes: [
    { key: 'first', title: 'First step', description: 'first', dependsOn: [] },
    { key: 'second', title: 'Second step', description: 'second', dependsOn: ['first'] },
  ],
};

describe('ticket blockers', () => {
  it('the tickets of a finished plan name their dependencies by ticket id and wait on nothing', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId, conversationId } = fixture;
    fixture.model.script(reply().tool('submit_plan', PLAN), reply().text('submitted'));
    const plan = await proposePlan(server, workspaceId, conversationId);
    fixture.model.scriptFor(planStepRequest('first'), reply().text('first done'));
    fixture.model.scriptFor(planStepRequest('second'), reply().text('second done'));
    expect((await server.api('POST', `/api/workspaces/${workspaceId}/plans/${plan.id}/approve`)).status).toBe(200);
    await pollUntil(
      async () => (await server.api('GET', `/api/workspaces/${workspaceId}/plans/${plan.id}`)).body,
      (current) => current.status !== 'executing',
      60_000,
    );
    const tickets = (await server.api('GET', `/api/workspaces/${workspaceId}/tickets`)).body.tickets as any[];
    const first = tickets.find((ticket) => ticket.planId === plan.id && ticket.nodeKey === 'first');
    const second = tickets.find((ticket) => ticket.planId === plan.id && ticket.nodeKey === 'second');
    expect([first.status, second.status]).toEqual(['done', 'done']);
    // The dependency is the first step's ticket, by id — not the step's key, which names no ticket.
    expect(second.dependsOn).toEqual([first.id]);
    expect(second.waitingOn).toEqual([]);
    const single = (await server.api('GET', `/api/workspaces/${workspaceId}/tickets/${second.id}`)).body.ticket;
    expect(single).toMatchObject({ dependsOn: [first.id], waitingOn: [] });
  }, 120_000);

  it('an operator ticket waits on an open dependency, stops waiting once it is done, even when the list is filtered', async () => {
    fixture = await startHarnessFixture();
    const { server, workspaceId } = fixture;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const design = (await api('POST', '/tickets', { title: 'Design' })).body;
    const build = (await api('POST', '/tickets', { title: 'Build', dependsOn: [design.id] })).body;
    const open = (await api('GET', '/tickets?status=open')).body.tickets;
    expect(open.find((ticket: any) => ticket.id === build.id).waitingOn).toEqual([design.id]);

    expect((await api('PATCH', `/tickets/${design.id}`, { status: 'done' })).status).toBe(200);
    // Filtered to open tickets, the done dependency is not in the list, and still does not block.
    const after = (await api('GET', '/tickets?status=open')).body.tickets;
    expect(after.map((ticket: any) => ticket.id)).toEqual([build.id]);
    expect(after[0].waitingOn).toEqual([]);
  });
});
