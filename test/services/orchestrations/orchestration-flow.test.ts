import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import { RecordingLauncher, respectsDependencies, validProposal } from '../../support/orchestration-fixtures.js';
import { startTestServer, createSeededWorkspace, type TestServer } from '../../support/test-server.js';

let fixture: HarnessFixture | null = null;
let servers: TestServer[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const server of servers) await server.dispose().catch(() => undefined);
  servers = [];
});

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);

describe('orchestrate mode end to end (ORC-1..4, AG-7)', () => {
  it('scripted orchestrator: invalid proposal corrected → cooldown refusal → operator approves → hires, tickets, pipeline in dependency order, synthesis last', async () => {
    const launcher = new RecordingLauncher();
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' }, server: { pipelineLauncher: launcher } });
    const lead = Object.values(fixture.agents)[0]!;
    const proposal = validProposal(lead.id);
    const invalid = { ...proposal, roles: [{ roleKey: 'lead', title: 'Lead' }], subTickets: [...proposal.subTickets, { key: 'review', title: 'x', roleKey: 'ghost', description: '', dependsOn: ['review'] }] };
    fixture.model.script(
      reply().tool('propose_orchestration', invalid),
      reply().tool('propose_orchestration', proposal),
      reply().tool('propose_orchestration', { ...proposal, goal: 'Ship the billing export, v2' }),
      reply().text('Proposed; waiting for the operator.'),
    );
    const runId = await fixture.send('Ship the billing export with a team');
    const run = await fixture.waitForRun(runId);
    expect(run.run).toMatchObject({ state: 'completed', mode: 'orchestrate', deliverableFailed: false });
    const orchestrator = run.run.agentId as string;

    // Read-only research surface plus the verb; there is no approve verb of any spelling (ORC-2).
    const surface = fixture.model.requests[0]!.toolNames;
    expect(surface).toContain('propose_orchestration');
    for (const name of ['write', 'edit', 'bash']) expect(surface).not.toContain(name);
    expect(surface.filter((name) => /approve/i.test(name))).toEqual([]);

    // Every violation at once; nothing stored for it.
    const violations = fixture.model.requests[1]!.lastToolResult!;
    expect(violations.isError).toBe(true);
    for (const fragment of ['role_assignment', 'unknown_role', 'self_dependency', 'duplicate_key', 'writer']) expect(violations.content).toContain(fragment);
    // Valid: stored as revision 1, pending approval.
    const accepted = fixture.model.requests[2]!.lastToolResult!;
    expect(accepted.isError).toBe(false);
    expect(accepted.content).toMatch(/^pending_approval: orchestration orc_/);
    // Re-proposal inside two minutes: refused with merge advice and a retryAfter (ORC-3).
    const cooled = fixture.model.requests[3]!.lastToolResult!;
    expect(cooled.isError).toBe(true);
    expect(cooled.content).toMatch(/Merge your changes into one complete proposal/);
    expect(cooled.content).toMatch(/after \d+ s/);

    const listed = (await api('GET', '/orchestrations')).body.orchestrations;
    expect(listed).toHaveLength(1);
    const orc = listed[0];
    expect(orc).toMatchObject({ status: 'proposed', latestRevision: 1, goal: 'Ship the billing export', orchestratorAgentId: orchestrator, maxUsd: 10, members: [], steps: [] });
    expect(orc.id).toMatch(/^orc_/);
    expect(orc.revisions).toHaveLength(1);
    // A hire has no history: its estimate is unknown, never a number.
    expect(orc.estimates.find((entry: any) => entry.roleKey === 'writer').estimate).toMatchObject({ kind: 'unknown' });
    expect(launcher.calls).toHaveLength(0);

    // An agent's run token cannot approve (ORC-2, SEC-1).
    const agentToken = fixture.server.running.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId, agentId: orchestrator });
    const byAgent = await fetch(`${fixture.server.url}/api/workspaces/${fixture.workspaceId}/orchestrations/${orc.id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ revision: 1 }),
    });
    expect(byAgent.status).toBe(401);
    expect((await api('GET', `/orchestrations/${orc.id}`)).body.status).toBe('proposed');

    // Bad inputs: a stale revision and a subset that is not closed change nothing.
    expect((await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 2 })).status).toBe(409);
    const open = await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1, subTicketKeys: ['api'] });
    expect(open.status).toBe(400);
    expect(open.body.error).toMatchObject({ field: 'subTicketKeys' });
    expect(open.body.error.message).toContain('api needs schema');
    expect((await api('GET', `/orchestrations/${orc.id}`)).body.status).toBe('proposed');

    // The operator approves revision 1.
    const approved = await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'executing', approvedRevision: 1, decidedBy: expect.any(String), pipelineRunId: 'prun_test_1' });
    expect(approved.body.steps).toEqual(['role:lead', 'role:writer', 'team', 'project', 'tickets', 'launch']);
    expect((await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 })).status).toBe(409);

    // Hired: the writer, reporting to the orchestrator (AG-7's exception).
    const agents = (await api('GET', '/agents')).body.agents;
    const writer = agents.find((agent: any) => agent.name === 'docs-writer');
    expect(writer).toMatchObject({ title: 'Technical writer', reportsTo: orchestrator, skills: ['docs'] });
    expect(approved.body.members).toEqual([
      { roleKey: 'lead', agentId: lead.id, hired: false },
      { roleKey: 'writer', agentId: writer.id, hired: true },
    ]);

    // Tickets, one per sub-ticket, with dependencies as ticket ids; a team and a project.
    const db = (await fixture.server.running.app.workspaces.handle(fixture.workspaceId)).database.db;
    const tickets = await db.selectFrom('tickets').selectAll().where('orchestration_id', '=', orc.id).execute();
    expect(tickets.map((ticket) => ticket.node_key).sort()).toEqual(['api', 'docs', 'review', 'schema']);
    const idOf = Object.fromEntries(tickets.map((ticket) => [ticket.node_key, ticket.id]));
    const reviewTicket = tickets.find((ticket) => ticket.node_key === 'review')!;
    expect(JSON.parse(reviewTicket.depends_on).sort()).toEqual([idOf.api, idOf.docs].sort());
    expect(tickets.every((ticket) => ticket.project_id === approved.body.projectId)).toBe(true);
    expect(tickets.find((ticket) => ticket.node_key === 'docs')!.assignee_agent_id).toBe(writer.id);
    const members = await db.selectFrom('team_members').selectAll().where('team_id', '=', approved.body.teamId).execute();
    expect(members.map((member) => [member.agent_id, member.hired])).toEqual(expect.arrayContaining([[lead.id, 0], [writer.id, 1]]));

    // The pipeline: launched once, research first, sub-tickets in dependency order, synthesis last.
    expect(launcher.calls).toHaveLength(1);
    const call = launcher.calls[0]!;
    expect(call).toMatchObject({ workspaceId: fixture.workspaceId, source: { kind: 'orchestration', id: orc.id }, idempotencyKey: `orchestration:${orc.id}:r1` });
    const nodes = call.definition.nodes;
    expect(nodes.map((node) => node.key)).toEqual(['research', 'schema', 'api', 'docs', 'review', 'synthesis']);
    expect(respectsDependencies(call.definition)).toBe(true);
    expect(nodes.at(-1)).toMatchObject({ type: 'synthesis', agentId: lead.id, dependsOn: ['schema', 'api', 'docs', 'review'] });
    expect(nodes.find((node) => node.key === 'docs')).toMatchObject({ type: 'ticketWork', ticketId: idOf.docs, agentId: writer.id, dependsOn: ['schema'] });

    // The engine reports back: synthesis starts → synthesizing; the run completes → completed.
    const orchestrations = fixture.server.running.app.orchestrations;
    const source = { kind: 'orchestration' as const, id: orc.id };
    await orchestrations.onNodeFinished({ workspaceId: fixture.workspaceId, pipelineRunId: 'prun_test_1', source, nodeKey: 'schema', nodeType: 'ticketWork', state: 'done', costUsd: 1.25 });
    await orchestrations.onNodeStarted({ workspaceId: fixture.workspaceId, pipelineRunId: 'prun_test_1', source, nodeKey: 'synthesis', nodeType: 'synthesis' });
    expect((await api('GET', `/orchestrations/${orc.id}`)).body).toMatchObject({ status: 'synthesizing', spentUsd: 1.25 });
    await orchestrations.onPipelineFinished({ workspaceId: fixture.workspaceId, pipelineRunId: 'prun_test_1', source, state: 'completed' });
    expect((await api('GET', `/orchestrations/${orc.id}`)).body.status).toBe('completed');
    expect((await db.selectFrom('tickets').select('status').where('id', '=', idOf.schema!).executeTakeFirstOrThrow()).status).toBe('done');
    expect((await api('POST', `/orchestrations/${orc.id}/cancel`, {})).status).toBe(409);
  }, 120_000);

  it('an orchestrate-mode run that ends without propose_orchestration is reminded, then flagged; its state stays completed', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
    fixture.model.script(reply().text('Thinking.'), reply().text('Still thinking.'), reply().text('No orchestration needed.'));
    const detail = await fixture.waitForRun(await fixture.send('what should the team do?'));
    expect(detail.run).toMatchObject({ state: 'completed', deliverableFailed: true });
    expect(fixture.model.requests[1]!.lastUserText).toMatch(/propose_orchestration/);
    const messages = (await api('GET', `/conversations/${fixture.conversationId}/messages`)).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: 'system', content: 'Ended without proposing an orchestration (no propose_orchestration call).' });
  }, 60_000);

  it('a rejection wakes the orchestrator in its conversation with the reason; it may propose again at once', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' }, server: { pipelineLauncher: new RecordingLauncher() } });
    const lead = Object.values(fixture.agents)[0]!;
    fixture.model.script(reply().tool('propose_orchestration', validProposal(lead.id)), reply().text('Proposed.'));
    await fixture.waitForRun(await fixture.send('Plan the billing export for a team'));
    const orc = (await api('GET', `/orchestrations?conversationId=${fixture.conversationId}`)).body.orchestrations[0];
    fixture.model.script(reply().tool('propose_orchestration', { ...validProposal(lead.id), goal: 'Ship the billing export without docs' }), reply().text('Revised.'));
    const rejected = await api('POST', `/orchestrations/${orc.id}/reject`, { reason: 'Drop the docs role.' });
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'Drop the docs role.' });
    await expect.poll(() => fixture!.model.requests.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(4);
    expect(fixture.model.requests[2]!.lastUserText).toContain('Drop the docs role.');
    // The rejected one is closed: the new proposal is a new orchestration, not refused by the cooldown.
    await expect
      .poll(async () => (await api('GET', `/orchestrations?conversationId=${fixture!.conversationId}`)).body.orchestrations.map((entry: any) => entry.status).sort(), { timeout: 15_000 })
      .toEqual(['proposed', 'rejected']);
  }, 60_000);

  it('revisions after the cooldown, the diff between them, a dependency-closed subset, and reject', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const launcher = new RecordingLauncher();
    const server = await startTestServer({ pipelineLauncher: launcher });
    servers.push(server);
    const app = server.running.app;
    (app.orchestrations as unknown as { now: () => number }).now = () => clock;
    const workspace = await createSeededWorkspace(server, 'Revisions');
    const lead = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents[0];
    const base = { workspaceId: workspace.id, conversationId: null, spaceId: null, agentId: lead.id, runId: null };
    const first = await app.orchestrations.propose({ ...base, proposal: validProposal(lead.id) });
    expect(first.ok).toBe(true);
    clock += 60_000;
    const early = await app.orchestrations.propose({ ...base, proposal: validProposal(lead.id) });
    expect(early).toMatchObject({ ok: false, kind: 'cooldown', retryAfterSeconds: 60 });
    clock += 60_000;
    const revised = validProposal(lead.id);
    revised.subTickets = revised.subTickets.map((ticket) => (ticket.key === 'api' ? { ...ticket, title: 'Export API' } : ticket));
    revised.budget = { estimatedUsd: 4, maxUsd: 12 };
    const second = await app.orchestrations.propose({ ...base, proposal: revised });
    expect(second).toMatchObject({ ok: true, revision: 2 });
    const id = (second as { orchestration: { id: string } }).orchestration.id;
    const path = `/api/workspaces/${workspace.id}/orchestrations/${id}`;
    const diff = await server.api('GET', `${path}/diff?to=2`);
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({ from: 1, to: 2, diff: { subTickets: { added: [], removed: [], changed: [{ key: 'api' }] }, budget: [{ field: 'maxUsd', before: 10, after: 12 }] } });
    expect((await server.api('GET', `${path}/diff?to=9`)).status).toBe(404);

    // Approving revision 1 is stale now; a closed subset of revision 2 is accepted.
    expect((await server.api('POST', `${path}/approve`, { revision: 1 })).status).toBe(409);
    const subset = await server.api('POST', `${path}/approve`, { revision: 2, subTicketKeys: ['docs', 'schema'] });
    expect(subset.status).toBe(200);
    expect(subset.body).toMatchObject({ status: 'executing', approvedKeys: ['schema', 'docs'], maxUsd: 12 });
    expect(launcher.calls[0]!.definition.nodes.map((node) => node.key)).toEqual(['research', 'schema', 'docs', 'synthesis']);

    // A fresh proposal, rejected: nothing is hired or launched.
    clock += 300_000;
    const third = await app.orchestrations.propose({ ...base, proposal: validProposal(lead.id, 'other-writer') });
    const thirdId = (third as { orchestration: { id: string } }).orchestration.id;
    const rejected = await server.api('POST', `/api/workspaces/${workspace.id}/orchestrations/${thirdId}/reject`, { reason: 'Too big.' });
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'Too big.' });
    expect((await server.api('POST', `/api/workspaces/${workspace.id}/orchestrations/${thirdId}/approve`, { revision: 1 })).status).toBe(409);
    expect(launcher.calls).toHaveLength(1);
    expect((await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents.some((agent: any) => agent.name === 'other-writer')).toBe(false);
    expect((await server.api('GET', `/api/workspaces/${workspace.id}/orchestrations/orc_missing`)).status).toBe(404);
  }, 60_000);

  it('maxUsd: the engine asks before a node; over the cap the orchestration pauses until the operator raises it', async () => {
    const server = await startTestServer({ pipelineLauncher: new RecordingLauncher() });
    servers.push(server);
    const app = server.running.app;
    const workspace = await createSeededWorkspace(server, 'Budget');
    const lead = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents[0];
    const proposed = await app.orchestrations.propose({ workspaceId: workspace.id, conversationId: null, spaceId: null, agentId: lead.id, runId: null, proposal: validProposal(lead.id) });
    const id = (proposed as { orchestration: { id: string } }).orchestration.id;
    const path = `/api/workspaces/${workspace.id}/orchestrations/${id}`;
    await server.api('POST', `${path}/approve`, { revision: 1 });
    const source = { kind: 'orchestration' as const, id };
    const ask = (estimatedUsd: number) => app.orchestrations.beforeNode({ workspaceId: workspace.id, pipelineRunId: 'prun_test_1', source, nodeKey: 'api', estimatedUsd });
    expect(await ask(3)).toEqual({ proceed: true });
    await app.orchestrations.onNodeFinished({ workspaceId: workspace.id, pipelineRunId: 'prun_test_1', source, nodeKey: 'schema', nodeType: 'ticketWork', state: 'done', costUsd: 8 });
    const refused = await ask(3);
    expect(refused).toMatchObject({ proceed: false, reason: expect.stringContaining('exceed its cap of $10.00') });
    expect((await server.api('GET', path)).body).toMatchObject({ budgetPaused: true, spentUsd: 8, status: 'executing' });
    expect((await server.api('POST', `${path}/budget`, { maxUsd: 5 })).status).toBe(400);
    const raised = await server.api('POST', `${path}/budget`, { maxUsd: 20 });
    expect(raised.body).toMatchObject({ budgetPaused: false, maxUsd: 20 });
    expect(await ask(3)).toEqual({ proceed: true });
  }, 60_000);
});
