/**
 * SEC-5, PIPE-1: a `bashScript`'s placeholders travel in the environment so upstream text stays data,
 * but bash evaluates a value as code in arithmetic: `(( "${CC_PIPELINE_0}" > 3 ))` with the value
 * `a[$(touch pwned.log)]` runs `touch`. The policy check saw only the variable and allowed the script,
 * so a webhook's payload (or an agent node's output) ran a command unasked. The classifier is now told
 * which variables carry such text: a script that evaluates one is unseen code and asks; a plain
 * number still runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyShellCommand, EFFECT_CLASSES, loadShellParser } from '../../src/core/index.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const SCRIPT = 'if (( {{trigger.score}} > 3 )); then echo high > ran.log; else echo low > ran.log; fi';

describe('pipeline placeholders evaluated as arithmetic (SEC-5, PIPE-1)', () => {
  it('SEC-5: a variable named untrusted makes arithmetic on it unseen code; without the name it reads as nothing', async () => {
    await loadShellParser();
    const rewritten = 'if (( "${CC_PIPELINE_0}" > 3 )); then echo high > ran.log; fi';
    expect(classifyShellCommand(rewritten, { untrustedVariables: ['CC_PIPELINE_0'] })).toMatchObject({ unknown: true, classes: [...EFFECT_CLASSES] });
    expect(classifyShellCommand('echo "${CC_PIPELINE_0}" > ran.log', { untrustedVariables: ['CC_PIPELINE_0'] }).unknown).toBe(false);
    expect(classifyShellCommand(rewritten).unknown).toBe(false);
  });

  it('PIPE-1: a payload that runs a command through arithmetic waits for the operator and runs nothing; a number runs', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const api = (method: string, path: string, body?: unknown) => f.server.api(method, `/api/workspaces/${f.workspaceId}${path}`, body);
    const created = await api('POST', '/pipelines', { name: 'score', nodes: [{ key: 'gate', type: 'bashScript', script: SCRIPT }] });
    expect(created.status).toBe(201);
    const pipelineId = created.body.pipeline.id as string;
    const read = async (runId: string) => (await api('GET', `/pipeline-runs/${runId}`)).body;
    const settle = async (runId: string, done: (node: any) => boolean) => {
      let node = (await read(runId)).nodes[0];
      for (let attempt = 0; attempt < 400 && !done(node); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        node = (await read(runId)).nodes[0];
      }
      return node;
    };

    const hostile = (await api('POST', `/pipelines/${pipelineId}/runs`, { payload: { score: 'a[$(touch pwned.log)]' } })).body.id as string;
    const asked = await settle(hostile, (node) => node.approvalId !== null || node.state === 'done' || node.state === 'failed');
    expect(asked.approvalId).not.toBeNull();
    expect(asked.state).not.toBe('done');
    const scratch = join(f.workspaceDir, 'pipeline-scratch', hostile, 'gate');
    expect(existsSync(join(scratch, 'pwned.log'))).toBe(false);
    expect(existsSync(join(scratch, 'ran.log'))).toBe(false);

    const plain = (await api('POST', `/pipelines/${pipelineId}/runs`, { payload: { score: '5' } })).body.id as string;
    const ran = await settle(plain, (node) => node.state === 'done' || node.state === 'failed');
    expect(ran.state).toBe('done');
    expect(existsSync(join(f.workspaceDir, 'pipeline-scratch', plain, 'gate', 'ran.log'))).toBe(true);
  });
});
