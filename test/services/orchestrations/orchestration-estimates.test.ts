import { afterEach, describe, expect, it } from 'vitest';
import type { OrchestrationProposal } from '../../../src/core/orchestrations/orchestration-proposal.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { SYNTHESIS_SCHEMA } from '../../support/orchestration-fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import { reply } from '../../support/scripted-reply.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});
/** The fixture workspace's API (`path` after `/api/workspaces/:ws`). */
const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);


/** Every priced model request in these tests reports the same tokens, so every one-request run costs the same. */
const TOKENS = { input: 2_000, output: 200, cacheRead: 0, cacheWrite: 0 };
const ANSWER = JSON.stringify({ summary: 'done', gaps: [] });
const priced = (times = 1) => reply().text(ANSWER).usage({ ...TOKENS, input: TOKENS.input * times, output: TOKENS.output * times });

/**
 * Gives the lead agent a run history of `count` priced runs (real runs through a pipeline's
 * promptAgent nodes, one at a time) and returns what one run cost.
 */
async function buildHistory(agentId: string, count: number, times = 1): Promise<number> {
  fixture!.model.script(...Array.from({ length: count }, () => priced(times)));
  const nodes = Array.from({ length: count }, (_, index) => ({ key: `h${index}`, type: 'promptAgent', agentId, prompt: `History run ${index}`, ...(index > 0 ? { dependsOn: [`h${index - 1}`] } : {}) }));
  const created = await api('POST', '/pipelines', { name: 'history', nodes });
  const started = await api('POST', `/pipelines/${created.body.pipeline.id}/runs`, {});
  const run = await waitFor(async () => (await api('GET', `/pipeline-runs/${started.body.id}`)).body, (body) => body.status !== 'running', 'the history runs');
  expect(run.status).toBe('completed');
  const costs = await Promise.all(run.nodes.map(async (node: any) => (await api('GET', `/runs/${node.agentRunId}`)).body.run.costUsd as number));
  expect(costs[0]).toBeGreaterThan(0);
  for (const cost of costs) expect(cost).toBeCloseTo(costs[0]!, 12);
  return costs[0]!;
}

/** Proposes (two model requests worth one run's tokens, so the history stays uniform) and approves. */
async function proposeAndApprove(proposal: OrchestrationProposal, times = 1): Promise<{ orchestrationId: string; pipelineRunId: string }> {
  const half = { input: (TOKENS.input * times) / 2, output: (TOKENS.output * times) / 2, cacheRead: 0, cacheWrite: 0 };
  fixture!.model.script(reply().tool('propose_orchestration', proposal).usage(half), reply().text('Proposed.').usage(half));
  const runId = await fixture!.send('Split the work into a team');
  expect((await fixture!.waitForRun(runId)).run.state).toBe('completed');
  const [orc] = (await api('GET', '/orchestrations')).body.orchestrations;
  const approved = await api('POST', `/orchestrations/${orc.id}/approve`, { revision: 1 });
  expect(approved.status).toBe(200);
  return { orchestrationId: orc.id, pipelineRunId: approved.body.pipelineRunId };
}

const ticket = (key: string, roleKey: string) => ({ key, title: `Ticket ${key}`, roleKey, description: `Do ${key}.`, dependsOn: [] });

describe('the budget gate adds each node estimate before it starts (ORC-4, ORC-2)', () => {
  it('a node starts only while spend + in-flight estimates + its own fit the cap: a sibling waits and is resumed without the operator; one that alone would pass the cap pauses for the operator', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
    const lead = Object.values(fixture.agents)[0]!;
    // The lead's history runs cost twice what its ticket runs will: the estimate (p90 of history) is high.
    const high = await buildHistory(lead.id, 4, 2);
    const maxUsd = high * 1.6;
    const { orchestrationId, pipelineRunId } = await proposeAndApprove(
      {
        goal: 'Three independent pieces',
        roles: [{ roleKey: 'lead', title: 'Lead', agentId: lead.id }],
        subTickets: [ticket('a', 'lead'), ticket('b', 'lead'), ticket('c', 'lead')],
        synthesis: { roleKey: 'lead', prompt: 'Summarise.', outputSchema: SYNTHESIS_SCHEMA },
        budget: { maxUsd },
      },
      2,
    );
    // The first ticket's model call is answered only once a sibling is seen held for budget room, so the
    // wait hold is observed while it lasts: its marker names the budget, never the operator.
    let waitingSibling: any = null;
    const firstTicket = reply(async () => {
      const seen = await waitFor(async () => (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body, (body) => body.nodes.some((node: any) => node.state === 'queued' && node.error), 'a sibling held for budget room');
      waitingSibling = seen.nodes.find((node: any) => node.state === 'queued' && node.error);
      return priced();
    });
    fixture.model.script(firstTicket, ...Array.from({ length: 3 }, () => priced()));
    // One ticket fits (its estimate ≤ 1.6·high); a second would make 2·high: it waits. When the first ends
    // (actual cost high/2) the second fits and is resumed by the gate itself; the third, after that, would
    // pass the cap with nothing left in flight: the orchestration pauses for the operator.
    const paused = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => body.budgetPaused === true, 'the budget pause');
    const run = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    const tickets = run.nodes.filter((node: any) => ['a', 'b', 'c'].includes(node.key));
    const done = tickets.filter((node: any) => node.state === 'done').sort((x: any, y: any) => (x.startedAt < y.startedAt ? -1 : 1));
    const held = tickets.filter((node: any) => node.state === 'queued');
    expect(done).toHaveLength(2);
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ attempts: 0, agentRunId: null });
    expect(held[0].error).toMatch(new RegExp(`^waiting for the operator: .*node ${held[0].key} is estimated at up to`));
    expect(waitingSibling.error).toMatch(/^waiting for budget room: .*held by the budget until .* finish \(no action needed\)$/);
    expect(waitingSibling.error).not.toMatch(/operator/);
    expect(waitingSibling).toMatchObject({ attempts: 0, agentRunId: null });
    // The two that ran never overlapped: the second started once the first had ended.
    expect(done[1].startedAt >= done[0].endedAt).toBe(true);
    expect(paused.spentUsd).toBeCloseTo(high, 12);
    expect(paused.spentUsd).toBeLessThanOrEqual(maxUsd);
    // Only history (4), the proposal (2) and the two tickets reached the model.
    expect(fixture.model.requests.length).toBe(8);

    // The operator raises the cap: the rest runs and the orchestration completes.
    expect((await api('POST', `/orchestrations/${orchestrationId}/budget`, { maxUsd: high * 10 })).status).toBe(200);
    const finished = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => ['completed', 'failed', 'cancelled'].includes(body.status), 'completion');
    expect(finished).toMatchObject({ status: 'completed', budgetPaused: false });
    expect(finished.spentUsd).toBeCloseTo(high * 2, 12);
  });

  it('a node whose cost is unknown (a new hire) runs alone: it never overlaps another node', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
    const lead = Object.values(fixture.agents)[0]!;
    const cost = await buildHistory(lead.id, 3);
    const { orchestrationId, pipelineRunId } = await proposeAndApprove({
      goal: 'A hire and two known pieces',
      roles: [
        { roleKey: 'lead', title: 'Lead', agentId: lead.id },
        { roleKey: 'writer', title: 'Writer', hire: { name: 'new-writer', title: 'Writer', persona: 'Brief.', skills: ['docs'] } },
      ],
      subTickets: [ticket('a', 'lead'), ticket('w', 'writer'), ticket('b', 'lead')],
      synthesis: { roleKey: 'lead', prompt: 'Summarise.', outputSchema: SYNTHESIS_SCHEMA },
      budget: { maxUsd: cost * 100 },
    });
    fixture.model.script(...Array.from({ length: 4 }, () => priced()));
    const finished = await waitFor(async () => (await api('GET', `/orchestrations/${orchestrationId}`)).body, (body) => ['completed', 'failed', 'cancelled'].includes(body.status), 'completion');
    expect(finished).toMatchObject({ status: 'completed', budgetPaused: false });
    const run = (await api('GET', `/pipeline-runs/${pipelineRunId}`)).body;
    const byKey = new Map<string, any>(run.nodes.map((node: any) => [node.key, node]));
    const hire = byKey.get('w');
    for (const key of ['a', 'b']) {
      const other = byKey.get(key);
      // Disjoint: one ended before the other started.
      expect(other.endedAt <= hire.startedAt || hire.endedAt <= other.startedAt).toBe(true);
    }
  });
});
