import { afterEach, describe, expect, it } from 'vitest';
import { RecordingLauncher, validProposal } from '../../support/orchestration-fixtures.js';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../../support/test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.dispose().catch(() => undefined);
  server = null;
});

async function proposeAndPrepare(launcher: RecordingLauncher) {
  const dataRoot = await makeDataRoot();
  server = await startTestServer({ dataRoot, pipelineLauncher: launcher });
  const workspace = await createSeededWorkspace(server, 'Resume');
  const lead = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents[0];
  const proposed = await server.running.app.orchestrations.propose({
    workspaceId: workspace.id,
    conversationId: null,
    spaceId: null,
    agentId: lead.id,
    runId: null,
    proposal: validProposal(lead.id),
  });
  const id = (proposed as { orchestration: { id: string } }).orchestration.id;
  return { dataRoot, workspaceId: workspace.id, id, lead };
}

async function counts(workspaceId: string, id: string) {
  const db = (await server!.running.app.workspaces.handle(workspaceId)).database.db;
  const agents = await db.selectFrom('agents').select('id').where('name', '=', 'docs-writer').execute();
  const teams = await db.selectFrom('teams').select('id').where('orchestration_id', '=', id).execute();
  const projects = await db.selectFrom('projects').select('id').where('orchestration_id', '=', id).execute();
  const tickets = await db.selectFrom('tickets').select('id').where('orchestration_id', '=', id).execute();
  return { agents: agents.length, teams: teams.length, projects: projects.length, tickets: tickets.length };
}

describe('the materializer resumes after a crash without repeating a step (ORC-4)', () => {
  it('crash after the team: the restarted server finishes from the project on; nothing is made twice', async () => {
    const first = new RecordingLauncher();
    const { dataRoot, workspaceId, id } = await proposeAndPrepare(first);
    server!.running.app.orchestrations.materializer.afterStep = (step) => {
      if (step === 'team') throw new Error('simulated crash after the team step');
    };
    const approved = await server!.api('POST', `/api/workspaces/${workspaceId}/orchestrations/${id}/approve`, { revision: 1 });
    expect(approved.body).toMatchObject({ status: 'approved', error: 'simulated crash after the team step', steps: ['role:lead', 'role:writer', 'team'] });
    expect(await counts(workspaceId, id)).toEqual({ agents: 1, teams: 1, projects: 0, tickets: 0 });
    expect(first.calls).toHaveLength(0);
    await server!.stop();

    const second = new RecordingLauncher();
    server = await startTestServer({ dataRoot, pipelineLauncher: second });
    const resumed = (await server.api('GET', `/api/workspaces/${workspaceId}/orchestrations/${id}`)).body;
    expect(resumed).toMatchObject({ status: 'executing', error: null, pipelineRunId: 'prun_test_1', steps: ['role:lead', 'role:writer', 'team', 'project', 'tickets', 'launch'] });
    expect(await counts(workspaceId, id)).toEqual({ agents: 1, teams: 1, projects: 1, tickets: 4 });
    expect(second.calls).toHaveLength(1);
  }, 120_000);

  it('crash between hiring and recording the hire: the agent is adopted, not hired twice', async () => {
    const launcher = new RecordingLauncher();
    const { dataRoot, workspaceId, id, lead } = await proposeAndPrepare(launcher);
    server!.running.app.orchestrations.materializer.afterStep = (step) => {
      if (step === 'role:writer') throw new Error('simulated crash after hiring');
    };
    await server!.api('POST', `/api/workspaces/${workspaceId}/orchestrations/${id}/approve`, { revision: 1 });
    // The crash window: the agent row exists but its step was never recorded.
    const db = (await server!.running.app.workspaces.handle(workspaceId)).database.db;
    await db.deleteFrom('orchestration_steps').where('orchestration_id', '=', id).where('step', '=', 'role:writer').execute();
    await server!.stop();

    server = await startTestServer({ dataRoot, pipelineLauncher: launcher });
    const resumed = (await server.api('GET', `/api/workspaces/${workspaceId}/orchestrations/${id}`)).body;
    expect(resumed.status).toBe('executing');
    expect(await counts(workspaceId, id)).toEqual({ agents: 1, teams: 1, projects: 1, tickets: 4 });
    const writer = (await server.api('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents.find((agent: any) => agent.name === 'docs-writer');
    expect(writer.reportsTo).toBe(lead.id);
    expect(resumed.members.find((member: any) => member.roleKey === 'writer')).toEqual({ roleKey: 'writer', agentId: writer.id, hired: true });
  }, 120_000);

  it('crash between launching and recording the launch: the idempotency key gives the same run back', async () => {
    const launcher = new RecordingLauncher();
    const { dataRoot, workspaceId, id } = await proposeAndPrepare(launcher);
    await server!.api('POST', `/api/workspaces/${workspaceId}/orchestrations/${id}/approve`, { revision: 1 });
    const db = (await server!.running.app.workspaces.handle(workspaceId)).database.db;
    // Roll the row back to the moment after launch() returned but before its step was written.
    await db.deleteFrom('orchestration_steps').where('orchestration_id', '=', id).where('step', '=', 'launch').execute();
    await db.updateTable('orchestrations').set({ status: 'approved', pipeline_run_id: null }).where('id', '=', id).execute();
    await server!.stop();

    server = await startTestServer({ dataRoot, pipelineLauncher: launcher });
    const resumed = (await server.api('GET', `/api/workspaces/${workspaceId}/orchestrations/${id}`)).body;
    expect(resumed).toMatchObject({ status: 'executing', pipelineRunId: 'prun_test_1' });
    expect(launcher.calls.map((call) => call.idempotencyKey)).toEqual([`orchestration:${id}:r1`, `orchestration:${id}:r1`]);
    expect(launcher.runs.size).toBe(1);
    // The recompiled definition is identical: the engine would see the very same pipeline.
    expect(launcher.calls[1]!.definition).toEqual(launcher.calls[0]!.definition);
    expect(await counts(workspaceId, id)).toEqual({ agents: 1, teams: 1, projects: 1, tickets: 4 });
  }, 120_000);

  it('when the engine refuses the launch, materialization stops before it and resumes when a working engine is attached', async () => {
    // The server always attaches its own engine now; an engine that is unavailable is a launcher that refuses.
    const refusing = { launch: async () => Promise.reject(new Error('the pipeline engine is not available')) };
    const dataRoot = await makeDataRoot();
    server = await startTestServer({ dataRoot, pipelineLauncher: refusing });
    const workspace = await createSeededWorkspace(server, 'No engine');
    const lead = (await server.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents[0];
    const proposed = await server.running.app.orchestrations.propose({ workspaceId: workspace.id, conversationId: null, spaceId: null, agentId: lead.id, runId: null, proposal: validProposal(lead.id) });
    const id = (proposed as { orchestration: { id: string } }).orchestration.id;
    await server.api('POST', `/api/workspaces/${workspace.id}/orchestrations/${id}/approve`, { revision: 1 });
    const stopped = (await server.api('GET', `/api/workspaces/${workspace.id}/orchestrations/${id}`)).body;
    expect(stopped).toMatchObject({ status: 'approved', pipelineRunId: null, steps: ['role:lead', 'role:writer', 'team', 'project', 'tickets'] });
    expect(stopped.error).toContain('the pipeline engine is not available');
    const launcher = new RecordingLauncher();
    await server.running.app.orchestrations.useLauncher(launcher);
    expect((await server.api('GET', `/api/workspaces/${workspace.id}/orchestrations/${id}`)).body).toMatchObject({ status: 'executing', pipelineRunId: 'prun_test_1' });
    expect(launcher.calls).toHaveLength(1);
  }, 120_000);
});
