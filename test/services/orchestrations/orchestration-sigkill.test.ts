import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';
import { SYNTHESIS_SCHEMA } from '../../support/orchestration-fixtures.js';
import { startServeOn, startServeProcess, type ServeProcess } from '../../support/serve-process.js';
import { waitFor } from '../../support/wait-for.js';

/**
 * The promise "kill the server mid-run and it resumes without re-running completed side effects",
 * literally: the real `control-center serve` process is SIGKILLed (no shutdown hook runs) while an
 * orchestration's pipeline has one ticket done and the next one in flight, then a new process is
 * started on the same data root.
 */

let model: ScriptedModelServer | null = null;
let server: ServeProcess | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
  await model?.close();
  model = null;
});

/** The header the `ticketWork` executor puts before a ticket's prompt: it names exactly one ticket. */
const ticketRequest = (title: string) => (request: ScriptedRequest) => request.allText.includes(`Ticket ${title}\n`);

describe('an orchestration survives a SIGKILL of the server mid-pipeline (ORC-4, PIPE-1)', () => {
  it('after a restart the completed ticket and the hire are not redone; the ticket in flight is not started twice', async () => {
    model = await startScriptedModelServer();
    let current = await startServeProcess({ ...model.providerEnv });
    server = current;
    const { dataRoot } = current;
    const workspace = (await current.api('POST', '/api/workspaces', { name: 'Killed' })).body;
    const base = `/api/workspaces/${workspace.id}`;
    const agents = await waitFor(async () => (await current.api('GET', `${base}/agents`)).body.agents as any[], (list) => list.length > 0, 'seeded agents');
    const lead = agents[0];
    const space = await current.api('POST', `${base}/spaces`, { name: 'Team', mode: 'orchestrate' });
    expect(space.status).toBe(201);
    const conversation = (await current.api('POST', `${base}/spaces/${space.body.id}/conversations`, { title: 'Goal' })).body;

    // Ticket one answers; ticket two's model call never returns (it is in flight when the process dies).
    const first = model.scriptFor(ticketRequest('Lay the groundwork'), reply().text('Groundwork laid.'));
    const second = model.scriptFor(ticketRequest('Build on it'), reply().hang());
    model.script(
      reply().tool('propose_orchestration', {
        goal: 'Build the thing',
        roles: [
          { roleKey: 'lead', title: 'Lead', agentId: lead.id },
          { roleKey: 'builder', title: 'Builder', hire: { name: 'sigkill-builder', title: 'Builder', persona: 'Careful.', skills: ['building'] } },
        ],
        subTickets: [
          { key: 'one', title: 'Lay the groundwork', roleKey: 'lead', description: 'First.', dependsOn: [] },
          { key: 'two', title: 'Build on it', roleKey: 'builder', description: 'Second.', dependsOn: ['one'] },
        ],
        synthesis: { roleKey: 'lead', prompt: 'Summarise.', outputSchema: SYNTHESIS_SCHEMA },
      }),
      reply().text('Proposed; waiting for the operator.'),
    );
    expect((await current.api('POST', `${base}/conversations/${conversation.id}/messages`, { text: 'Build the thing with a team' })).status).toBe(202);
    const proposed = await waitFor(async () => (await current.api('GET', `${base}/orchestrations`)).body.orchestrations as any[], (list) => list.length === 1, 'the proposal');
    const orcId = proposed[0].id as string;
    const approved = await current.api('POST', `${base}/orchestrations/${orcId}/approve`, { revision: 1 });
    expect(approved.status).toBe(200);
    const runId = approved.body.pipelineRunId as string;

    const beforeKill = await waitFor(
      async () => (await current.api('GET', `${base}/pipeline-runs/${runId}`)).body,
      (run) => run.nodes.find((node: any) => node.key === 'two')?.state === 'running' && second.requests.length === 1,
      'ticket two in flight',
    );
    const doneNode = beforeKill.nodes.find((node: any) => node.key === 'one');
    expect(doneNode).toMatchObject({ state: 'done', attempts: 1 });
    expect(first.requests).toHaveLength(1);

    // The killed process is not stopped again: the clean-up belongs to the one started on its data root.
    server = null;
    const closed = new Promise((resolve) => current.child.once('close', resolve));
    current.child.kill('SIGKILL');
    await closed;

    current = await startServeOn(dataRoot, model.providerEnv);
    server = current;
    const finished = await waitFor(
      async () => (await current.api('GET', `${base}/orchestrations/${orcId}`)).body,
      (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
      'the orchestration to settle after the restart',
    );
    const run = (await current.api('GET', `${base}/pipeline-runs/${runId}`)).body;
    const byKey = new Map<string, any>(run.nodes.map((node: any) => [node.key, node]));
    // The finished side effect keeps its one attempt and its one agent run; its model was asked once.
    expect(byKey.get('one')).toMatchObject({ state: 'done', attempts: 1, agentRunId: doneNode.agentRunId });
    expect(first.requests).toHaveLength(1);
    // The node in flight had side effects and is not idempotent: failed, never started a second time.
    expect(byKey.get('two')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(byKey.get('two').error).toContain('at most once');
    expect(second.requests).toHaveLength(1);
    expect(byKey.get('synthesis').state).toBe('blocked');
    expect(run.status).toBe('failed');
    expect(finished.status).toBe('failed');
    // The materializer's side effects were not redone: one hire, one ticket per sub-ticket.
    const hires = (await current.api('GET', `${base}/agents`)).body.agents.filter((agent: any) => agent.name === 'sigkill-builder');
    expect(hires).toHaveLength(1);
    const tickets = (await current.api('GET', `${base}/tickets`)).body.tickets.filter((ticket: any) => ticket.projectId === approved.body.projectId);
    expect(tickets.map((ticket: any) => [ticket.title, ticket.status]).sort()).toEqual([
      ['Build on it', 'failed'],
      ['Lay the groundwork', 'done'],
    ]);
  }, 300_000); // two server start-ups and an orchestration: far more than the 30 s default on a loaded machine
});
