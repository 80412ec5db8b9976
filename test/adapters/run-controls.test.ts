import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { heldTransport } from '../support/held-transport.js';

/**
 * ADP-1, HAR-5: a run's transport declares which controls it supports; a control it lacks is refused
 * with 409 and a reason naming the transport and the missing capability, and changes nothing —
 * before, `/steer` and `/pause` on a Claude Code run answered 200 and did nothing.
 */
let claude: ClaudeCodeFixture | null = null;
let harness: HarnessFixture | null = null;
afterEach(async () => {
  await claude?.dispose();
  claude = null;
  await harness?.dispose();
  harness = null;
});

async function pendingApproval(list: () => Promise<any[]>, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [approval] = await list();
    if (approval) return approval;
    if (Date.now() > deadline) throw new Error('no approval was requested');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('run controls follow the transport’s declaration (ADP-1, HAR-5)', () => {
  it('steer, pause and resume on a Claude Code run answer 409 naming the transport and the missing capability, and change nothing', async () => {
    claude = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = claude;
    const runs = `/api/workspaces/${f.workspaceId}/runs`;
    await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch held.txt' }, decision: 'ask' });
    f.model.script(reply().tool('Bash', { command: 'touch held.txt' }), reply().text('Done.'));
    const runId = await f.send('create held.txt');
    // The run is in progress (held on an approval) while the controls are tried.
    const approval = await pendingApproval(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals);

    const steer = await f.api('POST', `${runs}/${runId}/steer`, { text: 'also do something else' });
    expect(steer.status).toBe(409);
    expect(steer.body.error).toMatchObject({ code: 'conflict', field: 'runId' });
    expect(steer.body.error.message).toContain('Claude Code CLI (`claude-code`) does not support steering');
    expect(steer.body.error.message).toContain('`steer` capability');

    for (const action of ['pause', 'resume'] as const) {
      const refused = await f.api('POST', `${runs}/${runId}/${action}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'conflict', field: 'runId' });
      expect(refused.body.error.message).toContain(`Claude Code CLI (\`claude-code\`) does not support ${action === 'pause' ? 'pausing' : 'resuming'}`);
      expect(refused.body.error.message).toContain('`pauseResume` capability');
    }
    // Nothing changed: not paused, nothing queued for the turn.
    const active = f.app.activeRuns.get(runId)!;
    expect(active.paused).toBe(false);
    expect(active.steering).toEqual([]);

    await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'approve' });
    const detail = await f.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(detail.events.map((event: any) => event.type)).not.toContain('steering_injected');
  });

  it('cancel stays supported on a Claude Code run', async () => {
    claude = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = claude;
    await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch never.txt' }, decision: 'ask' });
    f.model.script(reply().tool('Bash', { command: 'touch never.txt' }), reply().text('Done.'));
    const runId = await f.send('create never.txt');
    await pendingApproval(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/cancel`)).status).toBe(200);
    expect((await f.waitForRun(runId)).run.state).toBe('cancelled');
  });

  it('the built-in harness still accepts steer, pause and resume (200)', async () => {
    harness = await startHarnessFixture();
    const h = harness;
    const api = (method: string, path: string, body?: unknown) => h.server.api(method, `/api/workspaces/${h.workspaceId}${path}`, body);
    await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch z' }, decision: 'ask' });
    h.model.script(reply().tool('bash', { command: 'touch z' }), reply().text('ok'));
    const runId = await h.send('go');
    const approval = await pendingApproval(async () => (await api('GET', '/approvals?status=pending')).body.approvals);
    expect((await api('POST', `/runs/${runId}/steer`, { text: 'steered' })).status).toBe(200);
    expect((await api('POST', `/runs/${runId}/pause`)).status).toBe(200);
    expect((await api('POST', `/runs/${runId}/resume`)).status).toBe(200);
    await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    const detail = await h.waitForRun(runId);
    expect(detail.run.state).toBe('completed');
    expect(h.model.requests[1]!.lastUserText).toBe('steered');
  });
});

describe('steering closes when a turn stops reading it (HAR-5, RLY-9)', () => {
  it('text steered before the close is handed to the transport; text steered after it answers 409 and is not kept', async () => {
    // A held turn whose transport, as a real one does when its turn is about to end, closes steering.
    const held = heldTransport();
    claude = await startClaudeCodeFixture({ adapter: { id: 'grok', transport: () => held.transport } });
    const f = claude;
    const { runId, ctx } = await held.start(f);
    const steer = (text: string) => f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/steer`, { text });
    expect((await steer('before the close')).status).toBe(200);
    expect(ctx.closeSteering!()).toEqual(['before the close']);
    const late = await steer('after the close');
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'conflict', field: 'runId' });
    expect(late.body.error.message).toMatch(/finishing its turn.*send the text as a new message/);
    expect(f.app.activeRuns.get(runId)!.steering).toEqual([]);
    held.finish();
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
  });
});
