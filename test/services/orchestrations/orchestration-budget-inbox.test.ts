import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import { validProposal } from '../../support/orchestration-fixtures.js';
import { makeDataRoot, startTestServer, type TestServer } from '../../support/test-server.js';

// ORC-4: a budget pause asks the operator in the Inbox (approve → the held node runs, reject →
// cancelled), and what nodes in flight hold of maxUsd is durable across a restart.

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
const api: Call = (method, path, body) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 600; attempt += 1) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

const ANSWER = JSON.stringify({ summary: 'Export shipped and documented.', gaps: [] });

/** Proposes and approves an orchestration with `maxUsd`; `nodeReplies` answer its nodes in order. */
async function launch(maxUsd: number, nodeReplies: ReturnType<typeof reply>[], dataRoot?: string): Promise<{ orchestrationId: string; pipelineRunId: string }> {
  fixture = await startHarnessFixture({ space: { mode: 'orchestrate' }, ...(dataRoot ? { server: { dataRoot } } : {}) });
  const lead = Object.values(fixture.agents)[0]!;
  fixture.model.script(reply().tool('propose_orchestration', { ...validProposal(lead.id), budget: { maxUsd } }), reply().text('Proposed.'), ...nodeReplies);
  const runId = await fixture.send('Ship the billing export with a team');
  expect((await fixture.waitForRun(runId)).run).toMatchObject({ state: 'completed' });
  const [orc] = (await api('GET', '/orchestrations')).body.orchestrations;
  const approved = await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 });
  expect(approved.status).toBe(200);
  return { orchestrationId: orc.id, pipelineRunId: approved.body.pipelineRunId };
}

const pendingBudgetApprovals = async (call: Call) =>
  ((await call('GET', '/approvals?status=pending')).body.approvals as any[]).filter((approval) => approval.kind === 'orchestration_budget');

const doneKeys = (run: any): string[] => run.nodes.filter((node: any) => node.state === 'done').map((node: any) => node.key);

describe('a budget pause asks the operator in the Inbox (ORC-4)', () => {
  it('approve lets the held node run over the cap once (the next one asks again); reject cancels the orchestration', async () => {
    const { orchestrationId, pipelineRunId } = await launch(0.000001, Array.from({ length: 6 }, () => reply().text(ANSWER)));
    const paused = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => body.budgetPaused === true && body.budgetApprovalId !== null, 'the budget pause');
    const [first] = await waitFor(() => pendingBudgetApprovals(api), (list) => list.length === 1, 'the Inbox approval');
    expect(first.id).toBe(paused.budgetApprovalId);
    expect(first).toMatchObject({ durable: true, agentId: paused.orchestratorAgentId, request: { orchestrationId, pipelineRunId, maxUsd: 0.000001 } });
    const heldKey: string = first.request.nodeKey;
    const before = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    expect(doneKeys(before)).not.toContain(heldKey);

    // The orchestrator's own run token cannot decide the question about its budget (only an operator can).
    const token = fixture!.server.running.app.runTokens.issue({ workspaceId: fixture!.workspaceId, runId: 'run_attacker', agentId: paused.orchestratorAgentId });
    const forged = await fetch(`${fixture!.server.url}/api/workspaces/${fixture!.workspaceId}/approvals/${first.id}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(forged.status).toBe(401);
    expect((await api('GET', `/orchestrations/${orchestrationId}`)).body).toMatchObject({ budgetPaused: true, budgetApprovalId: first.id });

    // Approve: exactly the held node runs, the spend passes the cap, and the next node asks again.
    expect((await api('POST', `/approvals/${first.id}/decision`, { decision: 'approve' })).status).toBe(200);
    const afterApproval = await waitFor(
      async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body,
      (run) => doneKeys(run).includes(heldKey),
      'the approved node to run',
    );
    expect(doneKeys(afterApproval)).toEqual([...doneKeys(before), heldKey]);
    const [second] = await waitFor(() => pendingBudgetApprovals(api), (list) => list.length === 1 && list[0].id !== first.id, 'the next Inbox approval');
    expect(second.request.nodeKey).not.toBe(heldKey);
    const pausedAgain = (await api('GET', `/orchestrations/${orchestrationId}`)).body;
    expect(pausedAgain).toMatchObject({ status: 'executing', budgetPaused: true, budgetApprovalId: second.id });
    expect(pausedAgain.spentUsd).toBeGreaterThan(paused.spentUsd);

    // Reject: the orchestration is cancelled and its run stops; nothing else runs.
    expect((await api('POST', `/approvals/${second.id}/decision`, { decision: 'reject', reason: 'too dear' })).status).toBe(200);
    const cancelled = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => body.status === 'cancelled', 'the cancel');
    expect(cancelled.reason).toBe('too dear');
    const run = await waitFor(async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body, (body) => body.status !== 'running', 'the run to end');
    expect(run.status).toBe('cancelled');
    expect(doneKeys(run)).not.toContain(second.request.nodeKey);
    expect(cancelled.budgetReservations).toEqual([]);
  });

  it('raising the cap instead withdraws the pending approval (it cannot be decided afterwards)', async () => {
    const { orchestrationId } = await launch(0.000001, Array.from({ length: 6 }, () => reply().text(ANSWER)));
    const [pending] = await waitFor(() => pendingBudgetApprovals(api), (list) => list.length === 1, 'the Inbox approval');
    expect((await api('POST', `/orchestrations/${orchestrationId}/budget`, { maxUsd: 1_000 })).status).toBe(200);
    const withdrawn = ((await api('GET', '/approvals')).body.approvals as any[]).find((approval) => approval.id === pending.id);
    expect(withdrawn.status).toBe('expired');
    expect((await api('POST', `/approvals/${pending.id}/decision`, { decision: 'approve' })).status).toBe(409);
    const finished = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => !['approved', 'executing', 'synthesizing'].includes(body.status), 'the end');
    expect(finished).toMatchObject({ status: 'completed', budgetApprovalId: null, budgetReservations: [] });
  });

  it('a pause that survives a restart keeps its one Inbox approval (not asked twice), and approving it after the restart continues', async () => {
    const dataRoot = await makeDataRoot();
    const { orchestrationId, pipelineRunId } = await launch(0.000001, Array.from({ length: 6 }, () => reply().text(ANSWER)), dataRoot);
    const [pending] = await waitFor(() => pendingBudgetApprovals(api), (list) => list.length === 1, 'the Inbox approval');
    const model = fixture!.model;
    const workspaceId = fixture!.workspaceId;
    fixture!.operator?.close();
    await fixture!.server.stop();
    fixture = null;
    let second: TestServer | null = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
    try {
      const call: Call = (method, path, body) => second!.api(method, `/api/workspaces/${workspaceId}${path}`, body);
      await waitFor(
        async () => (await call('GET', `/pipeline-runs/${pipelineRunId}`)).body,
        (run) => run.nodes.some((node: any) => node.key === pending.request.nodeKey && node.state === 'queued' && /waiting for the operator/.test(node.error ?? '')),
        'the node held again after the restart',
      );
      const approvals = await pendingBudgetApprovals(call);
      expect(approvals.map((approval) => approval.id)).toEqual([pending.id]);
      expect((await call('POST', `/approvals/${pending.id}/decision`, { decision: 'approve' })).status).toBe(200);
      await waitFor(
        async () => (await call('GET', `/pipeline-runs/${pipelineRunId}`)).body,
        (run) => doneKeys(run).includes(pending.request.nodeKey),
        'the approved node to run after the restart',
      );
      // Finish the rest without further questions.
      const next = await waitFor(() => pendingBudgetApprovals(call), (list) => list.length === 1 && list[0].id !== pending.id, 'the next question');
      expect(next).toHaveLength(1);
      expect((await call('POST', `/orchestrations/${orchestrationId}/budget`, { maxUsd: 1_000 })).status).toBe(200);
      const finished = await waitFor(async () => (await call('GET', `/orchestrations/${orchestrationId}`)).body, (body) => !['approved', 'executing', 'synthesizing'].includes(body.status), 'the end');
      expect(finished.status).toBe('completed');
    } finally {
      await second.dispose();
      second = null;
      await model.close();
    }
  });
});

describe('budget reservations are durable (ORC-4)', () => {
  it('a node in flight keeps its one reservation across a restart; it is neither lost nor counted twice, and the spend is each run once', async () => {
    const dataRoot = await makeDataRoot();
    // The first node (research) hangs so the server stops with it in flight; a new agent has no priced
    // history, so its cost is unknown and it reserves all that is left of the cap (it runs alone).
    const { orchestrationId, pipelineRunId } = await launch(1_000, [reply().text('looking').hang()], dataRoot);
    const holding = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => body.budgetReservations.length === 1, 'the reservation');
    const [reservation] = holding.budgetReservations;
    expect(reservation).toMatchObject({ pipelineRunId, reservedUsd: 1_000 - holding.spentUsd });
    const running = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    expect(running.nodes.filter((node: any) => node.state === 'running').map((node: any) => node.key)).toEqual([reservation.nodeKey]);
    // Nothing else was admitted beside it.
    expect(running.nodes.filter((node: any) => node.state === 'done')).toEqual([]);

    const model = fixture!.model;
    const workspaceId = fixture!.workspaceId;
    // The node's model call is in flight (the proposal turn made two) when the server stops.
    await model.waitForRequests(3);
    const dataDir: string = (await fixture!.server.api('GET', `/api/workspaces/${workspaceId}`)).body.dataDir;
    fixture!.operator?.close();
    await fixture!.server.stop();
    fixture = null;
    // With the server down, the reservation is a row in the workspace's own SQLite file.
    const file = join(dataDir, 'workspace.sqlite');
    expect(existsSync(file)).toBe(true);
    {
      const database = new Database(file, { readonly: true });
      try {
        expect(database.prepare('SELECT pipeline_run_id, node_key, reserved_usd FROM orchestration_budget_reservations').all()).toEqual([
          { pipeline_run_id: pipelineRunId, node_key: reservation.nodeKey, reserved_usd: reservation.reservedUsd },
        ]);
      } finally {
        database.close();
      }
    }
    model.script(...Array.from({ length: 8 }, () => reply().text(ANSWER)));
    let second: TestServer | null = await startTestServer({ dataRoot, env: { ...model.providerEnv }, modelMaxRetries: 0 });
    try {
      const call: Call = (method, path, body) => second!.api(method, `/api/workspaces/${workspaceId}${path}`, body);
      // Seen at every poll until the end: never two reservations for one node, never more than the cap.
      const seen: any[] = [];
      const finished = await waitFor(
        async () => {
          const body = (await call('GET', `/orchestrations/${orchestrationId}`)).body;
          seen.push(body.budgetReservations);
          return body;
        },
        (body) => !['approved', 'executing', 'synthesizing'].includes(body.status),
        'the orchestration to finish',
      );
      for (const reservations of seen) {
        const keys = reservations.map((held: any) => `${held.pipelineRunId}/${held.nodeKey}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(reservations.reduce((total: number, held: any) => total + held.reservedUsd, 0)).toBeLessThanOrEqual(1_000);
      }
      expect(finished.status).toBe('completed');
      expect(finished.budgetReservations).toEqual([]);
      // The spend is the sum of the node runs' costs, each counted once.
      const run = (await call('GET', `/pipeline-runs/${pipelineRunId}`)).body;
      const costs = await Promise.all(
        run.nodes.filter((node: any) => node.agentRunId).map(async (node: any) => (await call('GET', `/runs/${node.agentRunId}`)).body.run.costUsd ?? 0),
      );
      expect(finished.spentUsd).toBeCloseTo(costs.reduce((total: number, cost: number) => total + cost, 0), 9);
    } finally {
      await second.dispose();
      second = null;
      await model.close();
    }
  }, 150_000);
});
