/**
 * PIPE-1: a `bashScript` node is policy-checked before anything runs. The policy engine's verdict on
 * the whole script decides: `deny` fails the node (no retry, nothing ran), `ask` opens a durable
 * `pipeline_command` approval and only the operator's approval lets it run, `allow` runs it in the
 * node's scratch folder. A policy rule the operator set applies to pipelines like to agents.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const ASKED = 'echo ran > ran.log && rm -f stale.log';
const DENIED = 'echo ran > ran.log; git push origin main';

describe('bashScript nodes are policy-checked (PIPE-1, POL-3)', () => {
  it('deny fails the node without running it; ask waits for the operator — rejected never runs, approved runs; allow runs', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const api = (method: string, path: string, body?: unknown) => f.server.api(method, `/api/workspaces/${f.workspaceId}${path}`, body);
    // The operator forbids pushing; deleting a file asks by default. (Code the classifier cannot see,
    // `node -e …`, may push: the push deny refuses it too, SEC-5.)
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' })).status).toBe(201);
    expect((await api('POST', '/policy/probe', { command: ASKED })).body.decision).toBe('ask');
    expect((await api('POST', '/policy/probe', { command: DENIED })).body.decision).toBe('deny');

    const created = await api('POST', '/pipelines', {
      name: 'policy',
      nodes: [
        { key: 'allowed', type: 'bashScript', script: 'echo ran > ran.log' },
        { key: 'denied', type: 'bashScript', script: DENIED, retries: { max: 2, backoffMs: 10 } },
        { key: 'approved', type: 'bashScript', script: ASKED },
        { key: 'rejected', type: 'bashScript', script: ASKED },
      ],
    });
    expect(created.status).toBe(201);
    const started = await api('POST', `/pipelines/${created.body.pipeline.id}/runs`, {});
    const runId = started.body.id as string;
    const read = async () => (await api('GET', `/pipeline-runs/${runId}`)).body;
    const nodeOf = (run: any, key: string) => run.nodes.find((node: any) => node.key === key);
    const ranIn = (key: string) => readFile(join(f.workspaceDir, 'pipeline-scratch', runId, key, 'ran.log'), 'utf8').then(() => true, () => false);

    let run = await read();
    for (let attempt = 0; attempt < 400 && !(nodeOf(run, 'approved').approvalId && nodeOf(run, 'rejected').approvalId && nodeOf(run, 'denied').state === 'failed'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await read();
    }
    // Deny: failed at once, not retried, nothing ran.
    expect(nodeOf(run, 'denied')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(nodeOf(run, 'denied').error).toMatch(/policy denied the script/);
    expect(await ranIn('denied')).toBe(false);
    // Ask: both wait for the operator with a pipeline_command approval naming the command; neither ran yet.
    const pending = (await api('GET', '/approvals?status=pending')).body.approvals;
    for (const key of ['approved', 'rejected']) {
      const approval = pending.find((entry: any) => entry.id === nodeOf(run, key).approvalId);
      expect(approval).toMatchObject({ kind: 'pipeline_command', status: 'pending' });
      expect(JSON.stringify(approval)).toContain('rm -f stale.log');
      expect(await ranIn(key)).toBe(false);
    }
    expect((await api('POST', `/approvals/${nodeOf(run, 'rejected').approvalId}/decision`, { decision: 'reject', reason: 'not today' })).status).toBe(200);
    expect((await api('POST', `/approvals/${nodeOf(run, 'approved').approvalId}/decision`, { decision: 'approve' })).status).toBe(200);
    for (let attempt = 0; attempt < 400 && run.status === 'running'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await read();
    }
    expect(run.status).toBe('failed');
    expect(nodeOf(run, 'rejected')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(nodeOf(run, 'rejected').error).toMatch(/did not approve the script: not today/);
    expect(await ranIn('rejected')).toBe(false);
    expect(nodeOf(run, 'approved')).toMatchObject({ state: 'done', output: { exitCode: 0 } });
    expect(await ranIn('approved')).toBe(true);
    expect(nodeOf(run, 'allowed')).toMatchObject({ state: 'done', output: { exitCode: 0 } });
    expect(await ranIn('allowed')).toBe(true);
  });
});
