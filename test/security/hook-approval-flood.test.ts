import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PENDING_APPROVALS_PER_RUN } from '../../src/services/runs/gate-tool-calls.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { request as httpRequest } from 'node:http';
import { reply } from '../support/scripted-model-server.js';
import { pollUntil } from '../support/wait-for.js';

/**
 * POL-7, SEC-10: an agent holds its run token and can post to the Claude Code hook endpoint itself, as
 * fast as it likes. Every post that the policy asks about would become an approval card: a few
 * hundred of them bury the operator's screen (and the one card that matters). A run has at most
 * MAX_PENDING_APPROVALS_PER_RUN approvals waiting at once; a further ask is refused at once, naming the
 * limit, and creates no card. The real `claude` binary holds one approval; the flood is scripted.
 */
let fixture: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

const FLOOD = 60;

/** One hook post on its own connection (a pooled agent would queue the flood behind the held ones). */
function postHook(url: string, token: string, command: string, toolUseId: string): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: toolUseId });
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/api/hooks/pre-tool-use`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

async function pendingOf(f: ClaudeCodeFixture, runId: string): Promise<any[]> {
  const approvals = (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals as any[];
  return approvals.filter((approval) => approval.runId === runId);
}

describe('an agent cannot flood the operator with approval requests (POL-7)', () => {
  it('posting its own hook requests with the run token: at most the cap of cards wait, the rest are refused at once naming it', async () => {
    fixture = await startClaudeCodeFixture({ mode: 'chat', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch ' }, decision: 'ask' })).status).toBe(201);
    f.model.script(reply().tool('Bash', { command: 'touch held.txt' }), reply().text('Done.'));
    const runId = await f.send('touch held.txt');
    // The real runner's own ask is waiting: the run is held, its token live.
    await pollUntil(() => pendingOf(f, runId), (pending) => pending.length === 1, 30_000, 100);
    const token = f.app.hookSessions.forRun(runId)!.token;

    const flood = Array.from({ length: FLOOD }, (_, index) => postHook(f.url, token, `touch flood-${index}.txt`, `toolu_flood_${index}`));
    // The refused ones answer while the admitted ones are still waiting (they only end with the run).
    const answered: Array<{ status: number; body: string }> = [];
    // The admitted ones end when the run ends (the hook connection is cut then).
    for (const request of flood) void request.then((response) => answered.push(response), () => undefined);
    const refusedCount = FLOOD - (MAX_PENDING_APPROVALS_PER_RUN - 1);
    await pollUntil(async () => answered.length, (count) => count >= refusedCount, 30_000, 100);
    for (const response of answered) {
      expect(response.status).toBe(200);
      const output = JSON.parse(response.body).hookSpecificOutput;
      expect(output.permissionDecision).toBe('deny');
      expect(output.permissionDecisionReason).toContain(`already has ${MAX_PENDING_APPROVALS_PER_RUN} approvals waiting`);
    }
    await pollUntil(() => pendingOf(f, runId), (pending) => pending.length === MAX_PENDING_APPROVALS_PER_RUN, 30_000, 100);
    // No more than the cap were ever created for this run (the refused asks left no card, not even an expired one).
    const all = (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals`)).body.approvals as any[];
    expect(all.filter((approval) => approval.runId === runId)).toHaveLength(MAX_PENDING_APPROVALS_PER_RUN);

    // Deciding one frees a place: the next ask becomes a card again.
    const [first] = await pendingOf(f, runId);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${first.id}/decision`, { decision: 'reject', reason: 'no' })).status).toBe(200);
    await pollUntil(() => pendingOf(f, runId), (pending) => pending.length === MAX_PENDING_APPROVALS_PER_RUN - 1, 30_000, 100);
    void postHook(f.url, token, 'touch after.txt', 'toolu_after').catch(() => undefined);
    await pollUntil(() => pendingOf(f, runId), (pending) => pending.some((approval) => approval.title.includes('touch after.txt')), 30_000, 100);
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/runs/${runId}/cancel`)).status).toBe(200);
  }, 120_000);
});
