/**
 * BUD-1 on an in-process transport other than the built-in loop: OpenAI Image's one model call
 * waits while the workspace's spend limit is reached (the run paused, the decision in the Inbox);
 * "stop" ends the run cancelled and the images API is never called.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ONE_PIXEL_PNG_BASE64 } from '../support/fake-image-server.js';
import { startImageFixture } from '../support/image-fixture.js';
import { pollFor } from '../support/relay-fixture.js';

let started: Awaited<ReturnType<typeof startImageFixture>> | null = null;
afterEach(async () => {
  await started?.dispose();
  started = null;
});

describe('OpenAI Image under a spend limit (BUD-1)', () => {
  it('waits at the limit for the decision; "stop" cancels it before the images API is called', async () => {
    started = await startImageFixture();
    const { f, images } = started;
    const ws = (path: string) => `/api/workspaces/${f.workspaceId}${path}`;
    expect((await f.api('PUT', ws('/budgets/limits'), { period: 'month', limitUsd: 0.5 })).status).toBe(200);
    // Another agent's recorded spend has reached the workspace's limit.
    await f.app.budgets.record(f.workspaceId, { runId: 'run_elsewhere', agentId: 'ag_elsewhere', provider: 'anthropic', model: 'claude-sonnet-5-5', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.75, priced: true });
    images.script({ created: 1, data: [{ b64_json: ONE_PIXEL_PNG_BASE64 }] });
    const runId = await f.send('a lighthouse at dusk');

    const decision = await pollFor(
      async () => ((await f.api('GET', ws('/budgets/alerts'))).body.alerts as Array<{ id: string; kind: string; waitingRunIds: string[] }>).find((alert) => alert.kind === 'limit' && alert.waitingRunIds.includes(runId)),
      'the budget decision',
      30_000,
    );
    expect(f.app.activeRuns.get(runId)?.paused).toBe(true);
    expect(images.requests).toHaveLength(0);
    expect((await f.api('POST', ws(`/budgets/alerts/${decision.id}/decision`), { decision: 'stop' })).status).toBe(200);
    expect((await f.waitForRun(runId, 30_000)).run.state).toBe('cancelled');
    expect(images.requests).toHaveLength(0);
  }, 60_000);
});
