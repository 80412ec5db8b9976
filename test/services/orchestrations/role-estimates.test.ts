import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { SYNTHESIS_SCHEMA } from '../../support/orchestration-fixtures.js';
import { reply } from '../../support/scripted-reply.js';
import { waitFor } from '../../support/wait-for.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});
const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);

/** A reply worth `times` units of tokens: run cost grows with it, so the history has a spread. */
const TOKENS = { input: 2_000, output: 200, cacheRead: 0, cacheWrite: 0 };
const usage = (times: number) => ({ ...TOKENS, input: TOKENS.input * times, output: TOKENS.output * times });

/** Real priced runs of `agentId`, one per entry of `times` (a chain of promptAgent nodes); returns their costs. */
async function priceRuns(agentId: string, times: number[]): Promise<number[]> {
  fixture!.model.script(...times.map((factor) => reply().text('history').usage(usage(factor))));
  const nodes = times.map((_, index) => ({ key: `h${index}`, type: 'promptAgent', agentId, prompt: `History run ${index}`, ...(index > 0 ? { dependsOn: [`h${index - 1}`] } : {}) }));
  const created = await api('POST', '/pipelines', { name: 'history', nodes });
  const started = await api('POST', `/pipelines/${created.body.pipeline.id}/runs`, {});
  const run = await waitFor(async () => (await api('GET', `/pipeline-runs/${started.body.id}`)).body, (body) => body.status !== 'running', 'the history runs');
  expect(run.status).toBe('completed');
  return Promise.all(run.nodes.map(async (node: any) => (await api('GET', `/runs/${node.agentRunId}`)).body.run.costUsd as number));
}

/** Linear interpolation between the two sorted costs around quantile `q`, written out for the test. */
function percentile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}

const estimateOf = (orc: any, roleKey: string) => orc.estimates.find((entry: any) => entry.roleKey === roleKey).estimate;

describe('per-role estimates come from that role’s run history (ORC-2)', () => {
  it('unknown with a reason while history is thin or for a hire — no number at all — then a p10/p50/p90 band of the real priced runs × work items', async () => {
    fixture = await startHarnessFixture({ space: { mode: 'orchestrate' } });
    const lead = Object.values(fixture.agents)[0]!;
    const checker = fixture.agents['qa']!;
    // The proposing run is itself one priced run of the lead (two requests, one unit of tokens in all).
    const half = { ...TOKENS, input: TOKENS.input / 2, output: TOKENS.output / 2 };
    fixture.model.script(
      reply()
        .tool('propose_orchestration', {
          goal: 'Estimate me',
          roles: [
            { roleKey: 'lead', title: 'Lead', agentId: lead.id },
            { roleKey: 'checker', title: 'Checker', agentId: checker.id },
            { roleKey: 'writer', title: 'Writer', hire: { name: 'estimate-writer', title: 'Writer', persona: 'Brief.', skills: ['docs'] } },
          ],
          subTickets: [
            { key: 'a', title: 'A', roleKey: 'lead', description: 'a', dependsOn: [] },
            { key: 'b', title: 'B', roleKey: 'lead', description: 'b', dependsOn: ['a'] },
            { key: 'c', title: 'C', roleKey: 'checker', description: 'c', dependsOn: ['b'] },
            { key: 'd', title: 'D', roleKey: 'writer', description: 'd', dependsOn: [] },
          ],
          synthesis: { roleKey: 'lead', prompt: 'Summarise.', outputSchema: SYNTHESIS_SCHEMA },
        })
        .usage(half),
      reply().text('Proposed.').usage(half),
    );
    const proposingRunId = await fixture.send('Split it up');
    expect((await fixture.waitForRun(proposingRunId)).run.state).toBe('completed');
    const proposingCost = (await api('GET', `/runs/${proposingRunId}`)).body.run.costUsd as number;
    expect(proposingCost).toBeGreaterThan(0);
    const [listed] = (await api('GET', '/orchestrations')).body.orchestrations;

    // Thin history (one priced run), none, a hire: unknown with the reason, and no dollar field anywhere.
    const thin = (await api('GET', `/orchestrations/${listed.id}`)).body;
    expect(estimateOf(thin, 'lead')).toEqual({ kind: 'unknown', reason: 'the agent has 1 priced run(s); at least 3 are needed', runs: 1, workItems: 3 });
    expect(estimateOf(thin, 'checker')).toEqual({ kind: 'unknown', reason: 'the agent has 0 priced run(s); at least 3 are needed', runs: 0, workItems: 1 });
    expect(estimateOf(thin, 'writer')).toEqual({ kind: 'unknown', reason: 'a new hire has no run history', runs: 0, workItems: 1 });

    // Three more real runs of the lead, costing about 1×, 2× and 3× the proposing run.
    const history = await priceRuns(lead.id, [1, 2, 3]);
    expect(history[1]!).toBeGreaterThan(history[0]!);
    expect(history[2]!).toBeGreaterThan(history[1]!);
    const sorted = [proposingCost, ...history].sort((x, y) => x - y);
    const banded = (await api('GET', `/orchestrations/${listed.id}`)).body;
    const band = estimateOf(banded, 'lead');
    // Three work items: tickets a and b plus the synthesis.
    expect(band).toMatchObject({ kind: 'band', runs: 4, workItems: 3 });
    expect(band.lowUsd).toBeCloseTo(percentile(sorted, 0.1) * 3, 5);
    expect(band.medianUsd).toBeCloseTo(percentile(sorted, 0.5) * 3, 5);
    expect(band.highUsd).toBeCloseTo(percentile(sorted, 0.9) * 3, 5);
    expect(band.lowUsd).toBeLessThan(band.medianUsd);
    expect(band.medianUsd).toBeLessThan(band.highUsd);
    // The lead's history says nothing about the others.
    expect(estimateOf(banded, 'checker')).toMatchObject({ kind: 'unknown', runs: 0 });
    expect(estimateOf(banded, 'writer')).toMatchObject({ kind: 'unknown', reason: 'a new hire has no run history' });
  });
});
