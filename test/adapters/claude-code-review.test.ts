import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type ScriptedRequest } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { makeReviewRepo } from '../support/review-repo.js';

let fixture: ClaudeCodeFixture | null = null;
let repo: string | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  if (repo) await rm(repo, { recursive: true, force: true });
  repo = null;
});

const reviewer = (name: string) => (request: ScriptedRequest) => request.path.startsWith('/v1/messages') && request.allText.includes(`You are ${name}, reviewing`);

describe('review mode on Claude Code through MCP (REV-2, REV-5, CAP-3, ADP-3)', () => {
  it('a Claude Code reviewer adds findings over MCP; its out-of-diff anchor and self-confirmation are refused; a built-in peer confirms; the gate fails and the verdict blocks', async () => {
    fixture = await startClaudeCodeFixture({ transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    const made = await makeReviewRepo();
    repo = made.repo;
    const ws = `/api/workspaces/${f.workspaceId}`;
    expect((await f.api('PUT', `${ws}/review-gates`, { repoPath: repo, gates: [{ name: 'unit', command: 'sh check.sh' }] })).status).toBe(200);

    f.model.scriptFor(
      reviewer('coder'),
      reply().tool('mcp__control-center__add_review_node', { type: 'bug', priority: 'P0', confidence: 0.95, body: 'add() subtracts.', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 }, axis: 'correctness' }),
      reply().tool('mcp__control-center__add_review_node', { type: 'bug', priority: 'P1', confidence: 0.8, body: 'double() looks odd.', anchor: { path: 'src/math.js', startLine: 6, endLine: 7 } }),
      reply((request) => reply().tool('mcp__control-center__confirm_review_node', { findingId: /fnd_[0-9a-f]+/.exec(request.allText)?.[0] ?? 'none' })),
      reply().text('Reviewed.'),
    );
    const opened = await f.api('POST', `${ws}/reviews`, { repoPath: repo, base: 'main', head: 'feature', reviewers: ['coder'] });
    expect(opened.status).toBe(201);
    const reviewId = opened.body.review.id;
    const detail = await f.waitForRun(opened.body.dispatched[0].runId, 90_000);
    expect(detail.run).toMatchObject({ state: 'completed', mode: 'review' });

    const requests = f.model.requests.filter(reviewer('coder'));
    const offered = requests[0]!.toolNames;
    for (const name of ['add_review_node', 'confirm_review_node', 'dismiss_review_node', 'resolve_review_node', 'finalize_review', 'create_ticket', 'send_message']) {
      expect(offered).toContain(`mcp__control-center__${name}`);
    }
    expect(offered).not.toContain('Write');
    expect(offered).not.toContain('Edit');
    expect(requests[2]!.lastToolResult).toMatchObject({ isError: true });
    expect(requests[2]!.lastToolResult!.content).toMatch(/outside the diff/);
    expect(requests[3]!.lastToolResult!.content).toMatch(/cannot be confirmed by its own author/);
    // The MCP calls went through the built-in chokepoint and were logged under their own names.
    expect(detail.toolCalls.some((call: any) => call.name === 'add_review_node' && call.executed && !call.isError)).toBe(true);

    const findings = (await f.api('GET', `${ws}/reviews/${reviewId}/findings`)).body.findings;
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ status: 'open', author: { kind: 'agent', id: f.agentId } });

    // A built-in peer confirms it and finalizes; the failed gate and the P0 block.
    f.model.scriptFor(
      reviewer('qa'),
      reply().tool('confirm_review_node', { findingId: findings[0].id }),
      reply().tool('finalize_review', {}),
      reply().text('Confirmed.'),
    );
    const dispatched = await f.api('POST', `${ws}/reviews/${reviewId}/dispatch`, { reviewers: ['qa'] });
    expect((await f.waitForRun(dispatched.body.dispatched[0].runId, 60_000)).run.state).toBe('completed');
    const review = (await f.api('GET', `${ws}/reviews/${reviewId}`)).body;
    expect(review.verdict).toMatchObject({ verdict: 'block', counts: { p0: 1, gatesFailed: 1 } });
    expect((await f.api('GET', `${ws}/reviews/${reviewId}/findings`)).body.findings[0].status).toBe('consensusReady');
  });
});
