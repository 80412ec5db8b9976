import { afterEach, describe, expect, it } from 'vitest';
import type { ControlCenter } from '../../../src/services/control-center.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import { validProposal } from '../../support/orchestration-fixtures.js';
import { makeDataRoot, startTestServer, type TestServer } from '../../support/test-server.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 600; attempt += 1) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

const HELD = /^waiting for the operator: /;

/**
 * Held durably (ORC-4): the held node's job is done and no node job is due, so nothing can start until
 * something enqueues again (raising the cap). Polled because the hold is written just before its job
 * is completed — the positive sign that nothing more will run, where a fixed window passes a slow failure.
 */
async function noNodeJobDue(app: ControlCenter, workspaceId: string): Promise<void> {
  const queue = await app.pipelineEngine.queueOf(workspaceId);
  await waitFor(() => queue.nextDueAt('pipeline-nodes'), (due) => due === null, 'no node job due');
}

/** Proposes and approves an orchestration whose cap is below what one agent run costs. */
async function launchCapped(maxUsd: number, dataRoot?: string): Promise<{ orchestrationId: string; pipelineRunId: string }> {
  fixture = await startHarnessFixture({ space: { mode: 'orchestrate' }, ...(dataRoot ? { server: { dataRoot } } : {}) });
  const lead = Object.values(fixture.agents)[0]!;
  const answer = JSON.stringify({ summary: 'Export shipped and documented.', gaps: [] });
  const proposal = { ...validProposal(lead.id), budget: { maxUsd } };
  fixture.model.script(reply().tool('propose_orchestration', proposal), reply().text('Proposed.'), ...Array.from({ length: 6 }, () => reply().text(answer)));
  const runId = await fixture.send('Ship the billing export with a team');
  expect((await fixture.waitForRun(runId)).run).toMatchObject({ state: 'completed' });
  const [orc] = (await api('GET', '/orchestrations')).body.orchestrations;
  const approved = await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 });
  expect(approved.status).toBe(200);
  return { orchestrationId: orc.id, pipelineRunId: approved.body.pipelineRunId };
}

describe('maxUsd is enforced on the engine (ORC-4)', () => {
  it('once the spend reaches the cap the next node is held and the orchestration pauses; raising the cap runs the rest to completion', async () => {
    const { orchestrationId, pipelineRunId } = await launchCapped(0.000001);
    // The first node runs (nothing spent yet), its run's cost reaches the cap, and the next node is held.
    const paused = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => body.budgetPaused === true, 'the budget pause');
    expect(paused.spentUsd).toBeGreaterThan(0);
    expect(paused.status).toBe('executing');
    const held = await waitFor(
      async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body,
      (run) => run.nodes.some((node: any) => node.state === 'queued' && HELD.test(node.error ?? '')),
      'a held node',
    );
    expect(held.status).toBe('running');
    const ran = held.nodes.filter((node: any) => node.state === 'done').map((node: any) => node.key);
    expect(held.nodes.filter((node: any) => node.state === 'running')).toEqual([]);
    // Nothing more runs while it waits: no node job is left to run, the model is not asked again and no node starts.
    const requestsBefore = fixture!.model.requests.length;
    await noNodeJobDue(fixture!.server.running.app, fixture!.workspaceId);
    const still = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    expect(still.nodes.filter((node: any) => node.state === 'done').map((node: any) => node.key)).toEqual(ran);
    expect(still.nodes.filter((node: any) => node.state === 'running' || node.agentRunId && node.state !== 'done')).toEqual([]);
    expect(fixture!.model.requests.length).toBe(requestsBefore);

    // A cap at or below the spend is refused and changes nothing.
    const low = await api('POST', `/orchestrations/${orchestrationId}/budget`, { maxUsd: paused.spentUsd });
    expect(low.status).toBe(400);
    expect((await api('GET', `/orchestrations/${orchestrationId}`)).body.budgetPaused).toBe(true);

    const raised = await api('POST', `/orchestrations/${orchestrationId}/budget`, { maxUsd: 1_000 });
    expect(raised.status).toBe(200);
    const finished = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => ['completed', 'failed', 'cancelled'].includes(body.status), 'the orchestration to finish');
    expect(finished).toMatchObject({ status: 'completed', budgetPaused: false });
    const run = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    expect(run.status).toBe('completed');
    expect(run.nodes.filter((node: any) => node.state !== 'done')).toEqual([]);
  });

  it('a held run can still be cancelled', async () => {
    const { orchestrationId, pipelineRunId } = await launchCapped(0.000001);
    await waitFor(
      async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body,
      (run) => run.nodes.some((node: any) => HELD.test(node.error ?? '')),
      'a held node',
    );
    expect((await api('POST', `/orchestrations/${orchestrationId}/cancel`, {})).status).toBe(200);
    const run = await waitFor(async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body, (body) => body.status !== 'running', 'the run to end');
    expect(run.status).toBe('cancelled');
    expect(run.nodes.filter((node: any) => node.state === 'queued' || node.state === 'pending' || node.state === 'running')).toEqual([]);
  });

  it('a held node stays held across a server restart (the gate is asked again), and raising the cap afterwards finishes the run', async () => {
    const dataRoot = await makeDataRoot();
    const { orchestrationId, pipelineRunId } = await launchCapped(0.000001, dataRoot);
    const before = await waitFor(
      async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body,
      (run) => run.nodes.some((node: any) => HELD.test(node.error ?? '')),
      'a held node',
    );
    const doneBefore = before.nodes.filter((node: any) => node.state === 'done').map((node: any) => node.key);
    const model = fixture!.model;
    const workspaceId = fixture!.workspaceId;
    // Stop this server by hand and reopen the same data root with the same model server.
    fixture!.operator?.close();
    await fixture!.server.stop();
    fixture = null;
    let second: TestServer | null = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
    try {
      const call = (method: string, path: string, body?: unknown) => second!.api(method, `/api/workspaces/${workspaceId}${path}`, body);
      // After the restart the held node asked the gate again and is held again; nothing new ran.
      const requestsBefore = model.requests.length;
      const after = await waitFor(
        async () => (await call('GET', `/pipeline-runs/${pipelineRunId}`)).body,
        (run) => run.nodes.some((node: any) => node.state === 'queued' && HELD.test(node.error ?? '')),
        'the node held again after the restart',
      );
      expect(after.status).toBe('running');
      await noNodeJobDue(second.running.app, workspaceId);
      const still = (await call('GET', `/pipeline-runs/${pipelineRunId}`)).body;
      expect(still.nodes.filter((node: any) => node.state === 'done').map((node: any) => node.key)).toEqual(doneBefore);
      expect(still.nodes.filter((node: any) => node.state === 'running')).toEqual([]);
      expect(model.requests.length).toBe(requestsBefore);
      expect((await call('GET', `/orchestrations/${orchestrationId}`)).body).toMatchObject({ status: 'executing', budgetPaused: true });

      expect((await call('POST', `/orchestrations/${orchestrationId}/budget`, { maxUsd: 1_000 })).status).toBe(200);
      const finished = await waitFor(async () => (await call('GET', `/orchestrations/${orchestrationId}`)).body, (body) => ['completed', 'failed', 'cancelled'].includes(body.status), 'the orchestration to finish');
      expect(finished.status).toBe('completed');
      // Nodes done before the stop were not run again: one agent run each.
      const run = (await call('GET', `/pipeline-runs/${pipelineRunId}`)).body;
      expect(run.status).toBe('completed');
      for (const key of doneBefore) expect(run.nodes.find((node: any) => node.key === key).attempts).toBe(1);
    } finally {
      await second.dispose();
      second = null;
      await model.close();
    }
  });
});
