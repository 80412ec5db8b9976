import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import { validProposal } from '../../support/orchestration-fixtures.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('an approved orchestration runs on the durable pipeline engine (ORC-4, PIPE-1)', () => {
  it('sub-tickets run as real agent runs in dependency order, the synthesis last; the orchestration and its tickets follow the run to completed', async () => {
    // No recording launcher: the server's own engine runs the compiled pipeline.
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
    const lead = Object.values(fixture.agents)[0]!;
    // Every node's run answers with the synthesis JSON: the ticket runs take it as their report, the
    // synthesis node checks it against its schema (summary + gaps).
    const answer = JSON.stringify({ summary: 'Export shipped and documented.', gaps: [] });
    fixture.model.script(
      reply().tool('propose_orchestration', validProposal(lead.id)),
      reply().text('Proposed; waiting for the operator.'),
      ...Array.from({ length: 6 }, () => reply().text(answer)),
    );
    const runId = await fixture.send('Ship the billing export with a team');
    expect((await fixture.waitForRun(runId)).run).toMatchObject({ state: 'completed', deliverableFailed: false });
    const [orc] = (await api('GET', '/orchestrations')).body.orchestrations;

    const approved = await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 });
    expect(approved.status).toBe(200);
    const pipelineRunId = approved.body.pipelineRunId as string;
    expect(pipelineRunId).toMatch(/^pr_/);

    const finished = await waitFor(
      async () => (await api('GET', `/orchestrations/${orc.id}`)).body,
      (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
      'the orchestration to finish',
    );
    const pipelineRun = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    expect(pipelineRun.nodes.filter((node: any) => node.state !== 'done')).toEqual([]);
    expect(finished.status).toBe('completed');
    expect(pipelineRun.status).toBe('completed');

    // Dependency order on the clock: a node starts only after everything it depends on ended.
    const byKey = new Map<string, any>(pipelineRun.nodes.map((node: any) => [node.key, node]));
    for (const node of pipelineRun.nodes) {
      for (const dependency of node.dependsOn) expect(node.startedAt >= byKey.get(dependency).endedAt).toBe(true);
      // Every ticket and the synthesis ran as a real agent run.
      expect(node.agentRunId).toEqual(expect.any(String));
    }
    expect(byKey.get('synthesis').output).toMatchObject({ summary: 'Export shipped and documented.', gaps: [] });

    // The tickets followed their nodes.
    const tickets = (await api('GET', '/tickets')).body.tickets.filter((ticket: any) => ticket.projectId === approved.body.projectId);
    expect(tickets.map((ticket: any) => ticket.status)).toEqual(['done', 'done', 'done', 'done']);
  });
});
