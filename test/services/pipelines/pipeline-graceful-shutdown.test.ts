import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../../src/services/control-center.js';
import { makeDataRoot } from '../../support/test-server.js';

let app: ControlCenter | null = null;
let dataRoot: string | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await check()); waited += 1) {
    if (waited > 600) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A worker's SIGTERM lets nodes in flight finish within the grace period instead of cutting them off. */
describe('graceful shutdown with a grace period (PIPE-1)', () => {
  it('a node in flight finishes during the grace period; after the restart it is done once and its dependant runs', async () => {
    dataRoot = await makeDataRoot();
    app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
    await app.recover();
    const workspace = await app.workspaces.create('Grace');
    const { runId } = await app.pipelineEngine.start({
      workspaceId: workspace.id,
      definition: {
        name: 'grace',
        triggers: [],
        nodes: [
          { key: 'slow', type: 'bashScript', script: 'echo started >> slow.log; sleep 2; echo finished >> slow.log', dependsOn: [], continueOnFail: false, idempotent: false },
          { key: 'after', type: 'condition', expression: 'true', dependsOn: ['slow'], continueOnFail: false, idempotent: false },
        ],
      },
    });
    await waitFor(async () => (await app!.pipelines.getRun(workspace.id, runId)).nodes[0]!.state === 'running');
    await app.close({ graceMs: 60_000 });
    // Closed: the node finished inside the grace period instead of being left interrupted.
    app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
    const stopped = await app.pipelines.getRun(workspace.id, runId);
    expect(stopped.nodes[0]).toMatchObject({ key: 'slow', state: 'done', attempts: 1 });
    await app.recover();
    await waitFor(async () => (await app!.pipelines.getRun(workspace.id, runId)).status !== 'running');
    const run = await app.pipelines.getRun(workspace.id, runId);
    expect(run.status).toBe('completed');
    expect(run.nodes[1]).toMatchObject({ key: 'after', state: 'done', attempts: 1 });
  }, 120_000);
});
