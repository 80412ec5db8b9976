import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { makeReviewRepo } from '../../support/review-repo.js';
import { reply } from '../../support/scripted-reply.js';
import { pollUntil } from '../../support/wait-for.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

describe('pipeline triggers and file authoring (PIPE-1)', () => {
  it('a schedule trigger fires once for a matching minute, never for a non-matching one', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const created = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines`, {
      name: 'nightly',
      triggers: [{ type: 'schedule', cron: '30 2 * * *' }],
      nodes: [{ key: 'tick', type: 'condition', expression: '{{trigger.at}}' }],
    });
    const pipelines = f.server.running.app.pipelines;
    expect(await pipelines.fireSchedules(new Date('2026-12-01T02:31:00Z'))).toEqual([]);
    const first = await pipelines.fireSchedules(new Date('2026-12-01T02:30:05Z'));
    const again = await pipelines.fireSchedules(new Date('2026-12-01T02:30:40Z'));
    expect(first).toHaveLength(1);
    expect(again).toEqual(first);
    const runs = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipelines/${created.body.pipeline.id}/runs`)).body.runs;
    expect(runs).toHaveLength(1);
    expect(runs[0].trigger).toMatchObject({ type: 'schedule', payload: { at: '2026-12-01T02:30:00.000Z' } });
    const view = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipelines/${created.body.pipeline.id}`)).body;
    expect(view.triggers[0]).toMatchObject({ type: 'schedule', config: { cron: '30 2 * * *' }, lastFiredAt: '2026-12-01T02:30:00.000Z' });
    expect(view.lastRuns[0].id).toBe(runs[0].id);
  });

  it('a plan.approved event trigger starts a run with the plan as payload', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const created = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines`, {
      name: 'on-approval',
      triggers: [{ type: 'event', event: 'plan.approved' }],
      nodes: [{ key: 'seen', type: 'condition', expression: '{{trigger.data.goal}} == "Ship it"' }],
    });
    f.model.script(reply().tool('submit_plan', { goal: 'Ship it', nodes: [{ key: 'one', title: 'One', description: 'one', dependsOn: [] }] }), reply().text('submitted'));
    await f.server.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`, { text: '/plan ship it' });
    const plan = await pollUntil(
      async () => (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/plans?conversationId=${f.conversationId}`)).body.plans[0],
      (current) => current?.status === 'proposed',
    );
    f.model.script(reply().text('step done'));
    expect((await f.server.api('POST', `/api/workspaces/${f.workspaceId}/plans/${plan.id}/approve`)).status).toBe(200);
    const runs = await pollUntil(
      async () => (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipelines/${created.body.pipeline.id}/runs`)).body.runs,
      (list) => list.length === 1 && list[0].status !== 'running',
    );
    expect(runs[0]).toMatchObject({ status: 'completed', trigger: { type: 'event', payload: { event: 'plan.approved', data: { id: plan.id } } } });
    const run = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipeline-runs/${runs[0].id}`)).body;
    expect(run.nodes[0].output).toEqual({ value: true });
  });

  it('a ticket.done event trigger starts a run when a ticket moves to done, not on other updates', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const base = `/api/workspaces/${f.workspaceId}`;
    const created = await f.server.api('POST', `${base}/pipelines`, {
      name: 'on-done',
      triggers: [{ type: 'event', event: 'ticket.done' }],
      nodes: [{ key: 'seen', type: 'condition', expression: '{{trigger.data.title}} == "Write the docs"' }],
    });
    expect(created.status).toBe(201);
    const ticket = (await f.server.api('POST', `${base}/tickets`, { title: 'Write the docs', description: 'All of them.' })).body;
    expect((await f.server.api('PATCH', `${base}/tickets/${ticket.id}`, { status: 'inProgress' })).status).toBe(200);
    expect((await f.server.api('PATCH', `${base}/tickets/${ticket.id}`, { status: 'done' })).status).toBe(200);
    const runs = await pollUntil(
      async () => (await f.server.api('GET', `${base}/pipelines/${created.body.pipeline.id}/runs`)).body.runs,
      (list) => list.length === 1 && list[0].status !== 'running',
    );
    expect(runs[0]).toMatchObject({ status: 'completed', trigger: { type: 'event', payload: { event: 'ticket.done', data: { id: ticket.id, status: 'done' } } } });
    const run = (await f.server.api('GET', `${base}/pipeline-runs/${runs[0].id}`)).body;
    expect(run.nodes[0].output).toEqual({ value: true });
  });

  it('a review.finalized event trigger starts a run when a review verdict is published, with the review as payload', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const base = `/api/workspaces/${f.workspaceId}`;
    const made = await makeReviewRepo();
    try {
      const created = await f.server.api('POST', `${base}/pipelines`, {
        name: 'on-verdict',
        triggers: [{ type: 'event', event: 'review.finalized' }],
        nodes: [{ key: 'seen', type: 'condition', expression: '{{trigger.data.verdict.verdict}} == "block"' }],
      });
      expect(created.status).toBe(201);
      const opened = await f.server.api('POST', `${base}/reviews`, { repoPath: made.repo, base: 'main', head: 'feature', title: 'Add triple()' });
      expect(opened.status).toBe(201);
      const review = opened.body.review;
      // Opening a review and recording a finding publish nothing the trigger listens to.
      const finding = await f.server.api('POST', `${base}/reviews/${review.id}/findings`, { type: 'bug', priority: 'P0', confidence: 0.9, body: 'add() subtracts', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 } });
      expect(finding.status).toBe(201);
      expect((await f.server.api('GET', `${base}/pipelines/${created.body.pipeline.id}/runs`)).body.runs).toEqual([]);
      expect((await f.server.api('POST', `${base}/reviews/${review.id}/finalize`, { headline: 'add() is broken' })).status).toBe(200);
      const runs = await pollUntil(
        async () => (await f.server.api('GET', `${base}/pipelines/${created.body.pipeline.id}/runs`)).body.runs,
        (list) => list.length === 1 && list[0].status !== 'running',
      );
      expect(runs[0]).toMatchObject({ status: 'completed', trigger: { type: 'event', payload: { event: 'review.finalized', data: { id: review.id } } } });
      const run = (await f.server.api('GET', `${base}/pipeline-runs/${runs[0].id}`)).body;
      expect(run.nodes[0].output).toEqual({ value: true });
      // Publishing the verdict again is the same subject: one review starts one run per trigger. The
      // trigger's own start request is awaited (no fixed window, which a slow duplicate would pass):
      // it must come back with the first run, and no second run may exist.
      const pipelines = f.server.running.app.pipelines;
      const startRun = pipelines.startRun.bind(pipelines);
      const startRequests: Array<ReturnType<typeof startRun>> = [];
      vi.spyOn(pipelines, 'startRun').mockImplementation((...args) => {
        const started = startRun(...args);
        startRequests.push(started);
        return started;
      });
      expect((await f.server.api('POST', `${base}/reviews/${review.id}/finalize`, { headline: 'still broken' })).status).toBe(200);
      await pollUntil(async () => startRequests.length, (count) => count === 1);
      expect((await startRequests[0]!).id).toBe(runs[0].id);
      expect((await f.server.api('GET', `${base}/pipelines/${created.body.pipeline.id}/runs`)).body.runs).toHaveLength(1);
    } finally {
      await rm(made.repo, { recursive: true, force: true });
    }
  });

  it('JSON and YAML files in the workspace become pipelines; a broken file is reported with its nodes and stored nowhere', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const dir = join(f.workspaceDir, 'pipelines');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'a.yaml'), ['name: from-yaml', 'nodes:', '  - key: room', '    type: messaging.createSpace', '    name: Room', '    extras: { mode: Plan }'].join('\n'));
    await writeFile(join(dir, 'b.json'), JSON.stringify({ name: 'from-json', nodes: [{ key: 'x', type: 'condition', expression: 'true' }] }));
    await writeFile(join(dir, 'c.yml'), ['name: broken', 'nodes:', '  - key: x', '    type: human.gate', '    prompt: "{{y}}"', '    dependsOn: [y]'].join('\n'));
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const synced = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines/sync-files`);
    expect(synced.status).toBe(200);
    const byFile = Object.fromEntries(synced.body.files.map((entry: any) => [entry.file, entry]));
    expect(Object.keys(byFile)).toEqual(['a.yaml', 'b.json', 'c.yml']);
    expect(byFile['a.yaml'].warnings[0]).toMatchObject({ code: 'mode_ignored', nodeKey: 'room' });
    expect(byFile['c.yml'].pipelineId).toBeNull();
    expect(byFile['c.yml'].errors.map((issue: any) => [issue.code, issue.nodeKey])).toEqual([
      ['unknown_dependency', 'x'],
      ['placeholder_not_upstream', 'x'],
    ]);
    // Syncing again updates in place, never duplicates.
    await writeFile(join(dir, 'b.json'), JSON.stringify({ name: 'from-json-v2', nodes: [{ key: 'x', type: 'condition', expression: 'false' }] }));
    await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines/sync-files`);
    const list = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipelines`)).body.pipelines;
    expect(list.map((pipeline: any) => [pipeline.name, pipeline.source])).toEqual([
      ['from-yaml', { kind: 'file', path: 'a.yaml' }],
      ['from-json-v2', { kind: 'file', path: 'b.json' }],
    ]);
    expect(list[0].warnings[0].code).toBe('mode_ignored');
  });

  it('the launcher orchestrations call is idempotent per key and validates the definition', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const launcher = f.server.running.app.pipelineLauncher;
    const definition = { name: 'orc', triggers: [], nodes: [{ key: 'a', type: 'condition' as const, expression: 'true', dependsOn: [], continueOnFail: false, idempotent: false }] };
    const one = await launcher.launch({ workspaceId: f.workspaceId, definition, source: { kind: 'orchestration', id: 'orc_1' }, idempotencyKey: 'orc_1:launch' });
    const two = await launcher.launch({ workspaceId: f.workspaceId, definition, source: { kind: 'orchestration', id: 'orc_1' }, idempotencyKey: 'orc_1:launch' });
    expect(two.pipelineRunId).toBe(one.pipelineRunId);
    const run = await pollUntil(async () => (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipeline-runs/${one.pipelineRunId}`)).body, (current) => current.status !== 'running');
    expect(run).toMatchObject({ status: 'completed', source: { kind: 'orchestration', id: 'orc_1' }, pipelineId: null });
    await expect(
      launcher.launch({ workspaceId: f.workspaceId, definition: { ...definition, nodes: [{ ...definition.nodes[0]!, dependsOn: ['ghost'] }] }, source: { kind: 'orchestration', id: 'orc_2' }, idempotencyKey: 'k' }),
    ).rejects.toThrow(/ghost/);
  });
});
