import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { validProposal } from '../../support/orchestration-fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});
/** The fixture workspace's API (`path` after `/api/workspaces/:ws`). */
const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);


/** A request of `agentName`'s run that carries `marker` (the system prompt says "You are <name>"). */
const from = (agentName: string, marker: string) => (request: ScriptedRequest) => request.system.includes(`You are ${agentName}`) && request.allText.includes(marker);

describe('team.dispatch resolves a real team through the team directory (PIPE-1, ORC-4)', () => {
  it('allParallel prompts every member in its own run and collects their answers under the output key; manager prompts the lead, who delegates to a member', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
    const lead = Object.values(fixture.agents)[0]!;
    // A real team: the orchestration materializer creates it (the lead and a hired docs-writer, led by the orchestrator).
    const answer = JSON.stringify({ summary: 'done', gaps: [] });
    fixture.model.script(reply().tool('propose_orchestration', validProposal(lead.id)), reply().text('Proposed.'), ...Array.from({ length: 6 }, () => reply().text(answer)));
    const proposeRun = await fixture.send('Ship the billing export with a team');
    expect((await fixture.waitForRun(proposeRun)).run.state).toBe('completed');
    const [orc] = (await api('GET', '/orchestrations')).body.orchestrations;
    expect((await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 })).status).toBe(200);
    const materialized = await waitFor(async () => (await api('GET', `/orchestrations/${orc.id}`)).body, (body) => ['completed', 'failed'].includes(body.status), 'the orchestration');
    const teamId = materialized.teamId as string;
    expect(teamId).toMatch(/^team_/);
    const writer = (await api('GET', '/agents')).body.agents.find((agent: { name: string }) => agent.name === 'docs-writer');
    expect(writer).toBeTruthy();

    fixture.model.scriptFor(from(lead.name, 'Roll call for'), reply().text(`${lead.name} reporting`));
    fixture.model.scriptFor(from('docs-writer', 'Roll call for'), reply().text('docs-writer reporting'));
    // The manager delegates with delegate_task by name; the delegate's own run answers; the manager reports.
    fixture.model.scriptFor(from(lead.name, 'Coordinate the release notes'), reply().tool('delegate_task', { agent: 'docs-writer', task: 'Draft the release notes for the export' }), reply().text('manager: notes delegated and received'));
    fixture.model.scriptFor(from('docs-writer', 'Draft the release notes for the export'), reply().text('release notes drafted'));

    const created = await api('POST', '/pipelines', {
      name: 'team work',
      nodes: [
        { key: 'everyone', type: 'team.dispatch', teamId, strategy: 'allParallel', outputKey: 'answers', prompt: 'Roll call for {{trigger.topic}}' },
        { key: 'lead', type: 'team.dispatch', teamId, strategy: 'manager', dependsOn: ['everyone'], prompt: 'Coordinate the release notes after {{answers.results.0.text}}' },
      ],
    });
    expect(created.status).toBe(201);
    const started = await api('POST', `/pipelines/${created.body.pipeline.id}/runs`, { payload: { topic: 'export' } });
    expect(started.status).toBe(201);
    const run = await waitFor(async () => (await api('GET', `/pipeline-runs/${started.body.id}`)).body, (body) => body.status !== 'running', 'the pipeline run');
    expect(run.nodes.map((node: any) => [node.key, node.state, node.error])).toEqual([
      ['everyone', 'done', null],
      ['lead', 'done', null],
    ]);

    // allParallel: each member's run really happened, as that member, and the answers are collected.
    const everyone = run.nodes.find((node: any) => node.key === 'everyone');
    const results = everyone.output.results as Array<{ agentId: string; runId: string; text: string }>;
    expect(new Set(results.map((result) => result.agentId))).toEqual(new Set([lead.id, writer.id]));
    for (const result of results) {
      const agentRun = (await api('GET', `/runs/${result.runId}`)).body.run;
      expect(agentRun).toMatchObject({ agentId: result.agentId, state: 'completed' });
      expect(result.text).toBe(result.agentId === lead.id ? `${lead.name} reporting` : 'docs-writer reporting');
    }
    // The output key feeds the next node's placeholder.
    expect(fixture.model.requests.some((request) => request.lastUserText?.includes(`Coordinate the release notes after ${results[0]!.text}`))).toBe(true);

    // manager: the lead (the orchestrator) got the prompt with the members' names and delegated to docs-writer.
    const managed = run.nodes.find((node: any) => node.key === 'lead');
    expect(managed.output).toMatchObject({ agentId: materialized.orchestratorAgentId, text: 'manager: notes delegated and received' });
    const managerRequest = fixture.model.requests.find((request) => from(lead.name, 'Coordinate the release notes')(request));
    expect(managerRequest?.lastUserText).toContain('delegate_task: docs-writer');
    const delegated = fixture.model.requests.find((request) => from('docs-writer', 'Draft the release notes for the export')(request));
    expect(delegated).toBeTruthy();
    expect(fixture.model.requests.some((request) => request.lastToolResult?.content.includes("release notes drafted") === true)).toBe(true);
  });

  it('an unknown team fails the node without retrying, naming the team', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const created = await api('POST', '/pipelines', { name: 'no team', nodes: [{ key: 'x', type: 'team.dispatch', teamId: 'team_missing', strategy: 'allParallel', prompt: 'hi', retries: { max: 2, backoffMs: 5 } }] });
    const started = await api('POST', `/pipelines/${created.body.pipeline.id}/runs`, {});
    const run = await waitFor(async () => (await api('GET', `/pipeline-runs/${started.body.id}`)).body, (body) => body.status !== 'running', 'the pipeline run');
    expect(run.nodes[0]).toMatchObject({ state: 'failed', attempts: 1 });
    expect(run.nodes[0].error).toContain('team team_missing does not exist');
  });
});
