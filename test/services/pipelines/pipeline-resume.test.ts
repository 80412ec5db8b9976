import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../../support/test-server.js';
import { pollUntil } from '../../support/wait-for.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.dispose();
  server = null;
});

const node = (run: any, key: string) => run.nodes.find((candidate: any) => candidate.key === key);

describe('pipeline runs survive restarts (PIPE-1 durability, at most once)', () => {
  it('a restart resumes the run: finished side effects are not re-run, a gate re-attaches to its approval, an interrupted non-idempotent node fails and an idempotent one runs again', async () => {
    const dataRoot = await makeDataRoot();
    server = await startTestServer({ dataRoot });
    const workspace = await createSeededWorkspace(server, 'Durable');
    const ws = workspace.id;
    const created = await server.api('POST', `/api/workspaces/${ws}/pipelines`, {
      name: 'durable',
      nodes: [
        // A side effect that finishes before the first stop: it must never run again.
        { key: 'effect', type: 'bashScript', script: 'echo ran >> effect.log; cat effect.log | wc -l' },
        { key: 'gate', type: 'human.gate', dependsOn: ['effect'], prompt: 'continue?' },
        // In flight at the second stop, not idempotent: failed, never started twice.
        { key: 'once', type: 'bashScript', dependsOn: ['gate'], script: 'echo started >> once.log; sleep 60' },
        // In flight at the second stop, declared idempotent: started again, and this time it finishes.
        { key: 'again', type: 'bashScript', dependsOn: ['gate'], idempotent: true, script: 'echo started >> again.log; if [ "$(wc -l < again.log)" -ge 2 ]; then echo second; else sleep 60; fi' },
        { key: 'after-once', type: 'condition', dependsOn: ['once'], expression: 'true' },
      ],
    });
    expect(created.status).toBe(201);
    const started = await server.api('POST', `/api/workspaces/${ws}/pipelines/${created.body.pipeline.id}/runs`, {});
    const runId = started.body.id;
    const read = (s: TestServer) => s.api('GET', `/api/workspaces/${ws}/pipeline-runs/${runId}`).then((response) => response.body);
    const waiting = await pollUntil(() => read(server!), (run) => node(run, 'gate').state === 'running' && node(run, 'gate').approvalId !== null);
    expect(node(waiting, 'effect')).toMatchObject({ state: 'done', attempts: 1 });
    const approvalId = node(waiting, 'gate').approvalId;
    await server.stop();

    // First restart: the gate is waiting on the same approval (no second one); deciding it continues the run.
    server = await startTestServer({ dataRoot });
    const resumed = await pollUntil(() => read(server!), (run) => node(run, 'gate').state === 'running');
    expect(node(resumed, 'gate').approvalId).toBe(approvalId);
    const pending = (await server.api('GET', `/api/workspaces/${ws}/approvals?status=pending`)).body.approvals;
    expect(pending.filter((approval: any) => approval.kind === 'pipeline_gate')).toHaveLength(1);
    expect((await server.api('POST', `/api/workspaces/${ws}/approvals/${approvalId}/decision`, { decision: 'approve' })).status).toBe(200);
    await pollUntil(() => read(server!), (run) => node(run, 'once').state === 'running' && node(run, 'again').state === 'running');
    const scratch = join(workspace.dataDir, 'pipeline-scratch', runId);
    await pollUntil(() => readFile(join(scratch, 'once', 'once.log'), 'utf8').catch(() => ''), (text) => text.length > 0);
    await pollUntil(() => readFile(join(scratch, 'again', 'again.log'), 'utf8').catch(() => ''), (text) => text.length > 0);
    await server.stop();

    // Second restart: at most once for `once`, a second attempt for the idempotent `again`.
    server = await startTestServer({ dataRoot });
    const final = await pollUntil(() => read(server!), (run) => run.status !== 'running');
    expect(final.status).toBe('failed');
    expect(node(final, 'effect')).toMatchObject({ state: 'done', attempts: 1 });
    expect(node(final, 'gate')).toMatchObject({ state: 'done', output: { decision: 'approved' } });
    expect(node(final, 'once')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(node(final, 'once').error).toContain('at most once');
    expect(node(final, 'after-once').state).toBe('blocked');
    expect(node(final, 'again')).toMatchObject({ state: 'done', attempts: 2 });
    expect(node(final, 'again').output.stdout.trim()).toBe('second');
    expect(await readFile(join(scratch, 'effect', 'effect.log'), 'utf8')).toBe('ran\n');
    expect(await readFile(join(scratch, 'once', 'once.log'), 'utf8')).toBe('started\n');
    expect(await readFile(join(scratch, 'again', 'again.log'), 'utf8')).toBe('started\nstarted\n');
  });
});
