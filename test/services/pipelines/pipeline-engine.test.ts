import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedSpawnHelper } from '../../../src/sandbox/spawn-helper.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';
import { pollUntil } from '../../support/wait-for.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const asks = (marker: string) => (request: ScriptedRequest) => request.lastUserText?.includes(marker) === true;

async function createAndRun(f: HarnessFixture, definition: unknown, payload: Record<string, unknown> = {}): Promise<{ pipelineId: string; runId: string }> {
  const created = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines`, definition);
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const started = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines/${created.body.pipeline.id}/runs`, { payload });
  expect(started.status).toBe(201);
  return { pipelineId: created.body.pipeline.id, runId: started.body.id };
}

function runOf(f: HarnessFixture, runId: string): Promise<any> {
  return f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipeline-runs/${runId}`).then((response) => response.body);
}

const finished = (run: any) => run.status !== 'running';
const node = (run: any, key: string) => run.nodes.find((candidate: any) => candidate.key === key);

describe('pipeline engine (PIPE-1, MODE-5)', () => {
  it('runs a graph in dependency order: a room, an agent joining it, a condition, parallel agents, a synthesis checked against its schema', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const agentId = f.agents['ceo']!.id;
    f.model.scriptFor(asks('Investigate'), reply().text('{"status": "green", "findings": ["a", "b"]}'));
    f.model.scriptFor(asks('Left branch'), reply().text('left done'));
    f.model.scriptFor(asks('Right branch'), reply().text('right done'));
    f.model.scriptFor(asks('Synthesize'), reply().text('Here it is:\n```json\n{"summary": "all good", "gaps": []}\n```'));
    const { runId } = await createAndRun(f, {
      name: 'graph',
      nodes: [
        { key: 'room', type: 'messaging.createSpace', name: 'Room for {{trigger.topic}}', extras: { mode: 'orchestrate' } },
        { key: 'research', type: 'promptAgent', agentId, spaceFrom: 'room', dependsOn: ['room'], prompt: 'Investigate {{trigger.topic}}', outputSchema: { type: 'object', required: ['status'] } },
        { key: 'green', type: 'condition', dependsOn: ['research'], expression: '{{research.status}} == green' },
        { key: 'red', type: 'condition', dependsOn: ['research'], expression: '{{research.status}} == red' },
        { key: 'left', type: 'promptAgent', agentId, dependsOn: ['green'], prompt: 'Left branch with {{research.findings.0}}' },
        { key: 'right', type: 'promptAgent', agentId, dependsOn: ['green'], prompt: 'Right branch' },
        { key: 'never', type: 'promptAgent', agentId, dependsOn: ['red'], prompt: 'Never asked' },
        { key: 'final', type: 'synthesis', agentId, dependsOn: ['left', 'right'], prompt: 'Synthesize {{left.text}} and {{right.text}}', outputSchema: { type: 'object', required: ['summary', 'gaps'], properties: { gaps: { type: 'array' } } } },
      ],
    }, { topic: 'caching' });
    const run = await pollUntil(() => runOf(f, runId), finished);
    expect(run.status).toBe('completed');
    expect(Object.fromEntries(run.nodes.map((entry: any) => [entry.key, entry.state]))).toEqual({
      room: 'done', research: 'done', green: 'done', red: 'done', left: 'done', right: 'done', never: 'skipped', final: 'done',
    });
    // MODE-5: `orchestrate` is not an exact chat|review|plan: the room opened in the default, review.
    const roomOutput = node(run, 'room').output;
    expect(roomOutput.mode).toBe('review');
    const space = await f.server.api('GET', `/api/workspaces/${f.workspaceId}/spaces/${roomOutput.spaceId}`);
    expect(space.body).toMatchObject({ mode: 'review', name: 'Room for caching' });
    // The agent joined that room's conversation and ran in it; it did not change the room's mode.
    const research = await f.server.api('GET', `/api/workspaces/${f.workspaceId}/runs/${node(run, 'research').agentRunId}`);
    expect(research.body.run).toMatchObject({ spaceId: roomOutput.spaceId, conversationId: roomOutput.conversationId, mode: 'review' });
    expect(node(run, 'research').output).toEqual({ status: 'green', findings: ['a', 'b'] });
    expect(node(run, 'final').output).toEqual({ summary: 'all good', gaps: [] });
    const synthesisRequest = f.model.requests.find((request) => request.lastUserText?.includes('Synthesize'));
    expect(synthesisRequest?.lastUserText).toContain('Synthesize left done and right done');
    expect(f.model.requests.some((request) => request.lastUserText?.includes('Left branch with a'))).toBe(true);
    expect(f.model.requests.some((request) => request.lastUserText?.includes('Never asked'))).toBe(false);
  });

  it('a synthesis whose output breaks its schema fails after its retries; an unresolved placeholder fails its node; continueOnFail lets dependants start', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const agentId = f.agents['ceo']!.id;
    // Each attempt: an answer, then the output-schema reminder's answer (TRUTH-4), both breaking the schema.
    f.model.scriptFor(
      asks('Summarize'),
      reply().text('{"summary": "no gaps field"}'),
      reply().text('still {"wrong": true}'),
      reply().text('{"summary": "no gaps field"}'),
      reply().text('{"summary": "again no gaps"}'),
    );
    const { runId } = await createAndRun(f, {
      name: 'failing',
      nodes: [
        { key: 'start', type: 'condition', expression: 'true' },
        { key: 'hole', type: 'bashScript', dependsOn: ['start'], script: 'echo {{start.missing}}', continueOnFail: true },
        { key: 'after', type: 'condition', dependsOn: ['hole'], expression: 'true' },
        { key: 'synth', type: 'synthesis', agentId, dependsOn: ['start'], prompt: 'Summarize', retries: { max: 1, backoffMs: 10 }, outputSchema: { type: 'object', required: ['summary', 'gaps'] } },
        { key: 'blocked', type: 'condition', dependsOn: ['synth'], expression: 'true' },
      ],
    });
    const run = await pollUntil(() => runOf(f, runId), finished);
    expect(run.status).toBe('failed');
    expect(node(run, 'hole')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(node(run, 'hole').error).toContain('{{start.missing}}');
    expect(node(run, 'after').state).toBe('done');
    expect(node(run, 'synth')).toMatchObject({ state: 'failed', attempts: 2 });
    expect(node(run, 'synth').error).toContain('$.gaps: required');
    expect(node(run, 'synth').error).toContain('(also after a reminder)');
    expect(f.model.requests.filter((request) => request.lastUserText?.includes('Your answer must end with a JSON object matching')).length).toBe(2);
    expect(node(run, 'blocked')).toMatchObject({ state: 'blocked', attempts: 0 });
  });

  it('bash nodes run sandboxed with hostile upstream text as data, time out, and retry with backoff', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const { runId } = await createAndRun(f, {
      name: 'bash',
      nodes: [
        { key: 'echo', type: 'bashScript', script: 'printf "%s" {{trigger.text}}' },
        { key: 'slow', type: 'bashScript', script: 'sleep 30', timeoutMs: 300 },
        { key: 'flaky', type: 'bashScript', script: 'exit 3', retries: { max: 2, backoffMs: 5 } },
      ],
    }, { text: '$(touch pwned) `id` "quoted"; echo injected' });
    const run = await pollUntil(() => runOf(f, runId), finished);
    expect(node(run, 'echo').state).toBe('done');
    expect(node(run, 'echo').output.stdout).toBe('$(touch pwned) `id` "quoted"; echo injected');
    expect(node(run, 'slow')).toMatchObject({ state: 'failed' });
    expect(node(run, 'slow').error).toContain('timed out');
    expect(node(run, 'flaky')).toMatchObject({ state: 'failed', attempts: 3 });
    expect(node(run, 'flaky').error).toContain('exited with 3');
  });

  it('bash nodes are forked by the spawn helper, not the server: a failing script keeps its last words, and a helper killed mid-script fails the node', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    // 100 KB of output first, then the words that explain the failure: the tail is what is kept.
    const loud = await createAndRun(f, { name: 'loud', nodes: [{ key: 'loud', type: 'bashScript', script: "head -c 100000 /dev/zero | tr '\\0' x >&2; echo LAST-WORDS >&2; exit 4" }] });
    const loudRun = await pollUntil(() => runOf(f, loud.runId), finished);
    expect(node(loudRun, 'loud').state).toBe('failed');
    expect(node(loudRun, 'loud').error).toMatch(/exited with 4: x+LAST-WORDS\s*$/);

    const slow = await createAndRun(f, { name: 'slow', nodes: [{ key: 'slow', type: 'bashScript', script: 'sleep 30' }] });
    await pollUntil(() => runOf(f, slow.runId), (run) => node(run, 'slow').state === 'running');
    // The server itself never forked the script: killing the helper is what ends it.
    const helperChildren = async () => {
      const pid = sharedSpawnHelper().pid;
      return pid === undefined ? '' : await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    };
    await pollUntil(helperChildren, (children) => children.trim() !== '');
    process.kill(sharedSpawnHelper().pid!, 'SIGKILL');
    const slowRun = await pollUntil(() => runOf(f, slow.runId), finished);
    expect(node(slowRun, 'slow').state).toBe('failed');
    expect(node(slowRun, 'slow').error).toMatch(/spawn helper/);
  });

  it('a human gate waits for the operator; cancel node blocks its dependants, cancel run stops the rest', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const { runId } = await createAndRun(f, {
      name: 'gates',
      nodes: [
        { key: 'approve', type: 'human.gate', prompt: 'Ship {{trigger.version}}?' },
        { key: 'deny', type: 'human.gate', prompt: 'Deny me' },
        { key: 'cancel-me', type: 'human.gate', prompt: 'Cancel me' },
        { key: 'after-approve', type: 'condition', dependsOn: ['approve'], expression: '{{approve.decision}} == approved' },
        { key: 'after-deny', type: 'condition', dependsOn: ['deny'], expression: 'true' },
        { key: 'after-cancel', type: 'condition', dependsOn: ['cancel-me'], expression: 'true' },
      ],
    }, { version: '1.2' });
    const waiting = await pollUntil(() => runOf(f, runId), (run) => ['approve', 'deny', 'cancel-me'].every((key) => node(run, key).approvalId));
    const approvals = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals;
    const gate = approvals.find((approval: any) => approval.id === node(waiting, 'approve').approvalId);
    expect(gate).toMatchObject({ kind: 'pipeline_gate', durable: true, request: { prompt: 'Ship 1.2?', nodeKey: 'approve' } });
    expect((await f.server.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${gate.id}/decision`, { decision: 'approve' })).status).toBe(200);
    await f.server.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${node(waiting, 'deny').approvalId}/decision`, { decision: 'reject', reason: 'no' });
    const cancelled = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipeline-runs/${runId}/nodes/cancel-me/cancel`);
    expect(cancelled.status).toBe(200);
    const run = await pollUntil(() => runOf(f, runId), finished);
    expect(Object.fromEntries(run.nodes.map((entry: any) => [entry.key, entry.state]))).toEqual({
      approve: 'done', deny: 'failed', 'cancel-me': 'cancelled', 'after-approve': 'done', 'after-deny': 'blocked', 'after-cancel': 'blocked',
    });
    expect(node(run, 'after-approve').output).toEqual({ value: true });
    expect(node(run, 'deny').error).toContain('rejected');
    expect(run.status).toBe('failed');
    expect((await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipeline-runs/${runId}/cancel`)).status).toBe(409);

    const second = await createAndRun(f, { name: 'to-cancel', nodes: [{ key: 'wait', type: 'human.gate', prompt: 'wait' }, { key: 'next', type: 'condition', dependsOn: ['wait'], expression: 'true' }] });
    await pollUntil(() => runOf(f, second.runId), (current) => node(current, 'wait').state === 'running');
    const stopped = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipeline-runs/${second.runId}/cancel`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('cancelled');
    expect(stopped.body.nodes.map((entry: any) => entry.state)).toEqual(['cancelled', 'cancelled']);
  });

  it('refuses invalid definitions with every error and its node, and unknown ids with 404', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const bad = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines`, {
      name: 'bad',
      nodes: [
        { key: 'a', type: 'condition', expression: 'true', dependsOn: ['ghost'] },
        { key: 'b', type: 'human.gate', prompt: '{{c}}' },
        { key: 'c', type: 'human.gate', prompt: 'x', dependsOn: ['b'] },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_pipeline');
    expect(bad.body.error.issues.map((issue: any) => issue.message)).toEqual([
      expect.stringContaining('node a: node a depends on unknown node ghost'),
      expect.stringContaining('node b: placeholder {{c}}'),
    ]);
    expect((await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipelines`)).body.pipelines).toEqual([]);
    expect((await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipeline-runs/pr_nope`)).status).toBe(404);
    expect((await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines/pl_nope/runs`, {})).status).toBe(404);
    const warned = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines/validate`, { name: 'w', nodes: [{ key: 's', type: 'messaging.createSpace', name: 'r', extras: { conversationMode: 'chat' } }] });
    expect(warned.body.errors).toEqual([]);
    expect(warned.body.warnings[0]).toMatchObject({ code: 'mode_ignored', nodeKey: 's' });
  });
});
