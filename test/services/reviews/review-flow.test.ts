import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { git, makeReviewRepo, MATH_MAIN } from '../../support/review-repo.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';

let fixture: HarnessFixture;
let repo: string | null = null;
afterEach(async () => {
  await fixture?.dispose();
  if (repo) await rm(repo, { recursive: true, force: true });
  repo = null;
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const reviewer = (name: string) => (request: ScriptedRequest) => request.allText.includes(`You are ${name}, reviewing`);
const findingIdIn = (text: string | undefined) => /fnd_[0-9a-f]+/.exec(text ?? '')?.[0] ?? 'none';

async function waitForRuns(runIds: string[]): Promise<any[]> {
  return Promise.all(runIds.map((runId) => fixture.waitForRun(runId, 30_000)));
}

describe('review mode end to end (REV-1..5, MODE-6, CAP-3)', () => {
  it('two reviewers on a seeded bug: anchors checked, REV-3 drop counted, author cannot confirm, peer confirms, gate fails, verdict block', async () => {
    fixture = await startHarnessFixture();
    const made = await makeReviewRepo();
    repo = made.repo;
    const gates = await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'unit', command: 'sh check.sh' }, { name: 'lint', command: 'test -f src/math.js' }] });
    expect(gates.status).toBe(200);

    // qa: a real finding, an out-of-diff anchor, a finding without priority, then tries to confirm its own.
    fixture.model.scriptFor(
      reviewer('qa'),
      reply().tool('add_review_node', { type: 'bug', priority: 'P0', confidence: 0.9, body: 'add() subtracts: every caller gets a - b.', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 }, axis: 'correctness' }),
      reply().tool('add_review_node', { type: 'suggestion', priority: 'P3', confidence: 0.5, body: 'README could mention triple().', anchor: { path: 'README.md', startLine: 1, endLine: 1 } }),
      reply().tool('add_review_node', { type: 'question', confidence: 0.4, body: 'Is double() still needed?' }),
      reply((request) => reply().tool('confirm_review_node', { findingId: findingIdIn(request.allText.match(/Recorded fnd_[0-9a-f]+/)?.[0]) })),
      reply().text('qa done.'),
    );
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature', title: 'Add triple()', reviewers: ['qa'] });
    expect(opened.status).toBe(201);
    const review = opened.body.review;
    expect(review).toMatchObject({ base: 'main', head: 'feature', baseSha: made.mainSha, headSha: made.featureSha, mergeBaseSha: made.mainSha, round: 1 });
    expect(review.hunkMap['src/math.js']).toEqual([[3, 3], [9, 11]]);
    expect(review.hunkMap['REVIEW.md']).toEqual([[1, 1]]);
    expect(review.reviewMd).toContain('Arithmetic must stay exact');
    const space = (await api('GET', `/spaces/${review.spaceId}`)).body;
    expect(space).toMatchObject({ kind: 'pullRequest', mode: 'review', repoPath: repo });
    expect(opened.body.dispatched).toEqual([expect.objectContaining({ agent: 'qa', queued: false })]);
    const [qaRun] = await waitForRuns([opened.body.dispatched[0].runId]);
    expect(qaRun.run).toMatchObject({ state: 'completed', mode: 'review' });

    // Review surface: the review verbs and ticket tools, no mutating tools (CAP-3).
    const qaRequests = fixture.model.requests.filter(reviewer('qa'));
    expect(qaRequests[0]!.toolNames).toEqual(expect.arrayContaining(['add_review_node', 'confirm_review_node', 'finalize_review', 'create_ticket', 'send_message', 'list_review_nodes', 'read']));
    for (const name of ['write', 'edit', 'bash']) expect(qaRequests[0]!.toolNames).not.toContain(name);
    expect(qaRequests[0]!.lastUserText).toContain(made.featureSha);
    expect(qaRequests[0]!.lastUserText).toContain('src/math.js: 3, 9-11');
    // The out-of-diff anchor was refused to the agent; the missing priority was dropped and said so.
    expect(qaRequests[2]!.lastToolResult).toMatchObject({ isError: true });
    expect(qaRequests[2]!.lastToolResult!.content).toMatch(/README.md" is not a file changed by this review's diff/);
    expect(qaRequests[3]!.lastToolResult!.content).toMatch(/dropped \(REV-3\): missing priority/);
    expect(qaRequests[4]!.lastToolResult).toMatchObject({ isError: true });
    expect(qaRequests[4]!.lastToolResult!.content).toMatch(/cannot be confirmed by its own author/);

    let findings = (await api('GET', `/reviews/${review.id}/findings`)).body;
    expect(findings.dropped).toBe(1);
    expect(findings.findings).toHaveLength(1);
    const bug = findings.findings[0];
    expect(bug).toMatchObject({ type: 'bug', priority: 'P0', status: 'open', author: { kind: 'agent', id: fixture.agents.qa!.id }, anchor: { path: 'src/math.js', startLine: 3, endLine: 3 } });
    expect(bug.id).toMatch(/^fnd_/);

    // architect: lists, confirms qa's finding, adds its own, finalizes.
    fixture.model.scriptFor(
      reviewer('architect'),
      reply().tool('list_review_nodes', {}),
      reply((request) => reply().tool('confirm_review_node', { findingId: findingIdIn(request.lastToolResult?.content) })),
      reply().tool('add_review_node', { type: 'recommendation', priority: 'P2', confidence: 0.6, body: 'triple() could be a * 3.', anchor: { path: 'src/math.js', startLine: 10, endLine: 11 } }),
      reply().tool('finalize_review', { headline: 'add() is broken' }),
      reply().text('architect done.'),
    );
    const dispatched = await api('POST', `/reviews/${review.id}/dispatch`, { reviewers: ['architect'] });
    expect(dispatched.status).toBe(202);
    const [architectRun] = await waitForRuns([dispatched.body.dispatched[0].runId]);
    expect(architectRun.run.state).toBe('completed');
    const architectRequests = fixture.model.requests.filter(reviewer('architect'));
    expect(architectRequests[2]!.lastToolResult).toMatchObject({ isError: false, content: `${bug.id} is now consensusReady.` });
    expect(architectRequests[4]!.lastToolResult!.content).toMatch(/^Verdict published: block/);

    findings = (await api('GET', `/reviews/${review.id}/findings`)).body;
    expect(findings.findings.find((finding: any) => finding.id === bug.id)).toMatchObject({ status: 'consensusReady', confirmedBy: [{ kind: 'agent', id: fixture.agents.architect!.id }] });
    const verdict = (await api('GET', `/reviews/${review.id}/verdict`)).body;
    expect(verdict.published).toMatchObject({ verdict: 'block', headline: 'add() is broken', dropped: 1, delta: { summary: '0 resolved · 2 new · 0 still open' } });
    expect(verdict.published.axes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ axis: 'unit', kind: 'gated', status: 'fail' }),
        expect.objectContaining({ axis: 'lint', kind: 'gated', status: 'pass' }),
        expect.objectContaining({ axis: 'correctness', kind: 'agent', status: 'fail' }),
      ]),
    );
    expect(verdict.published.reasons.join('\n')).toMatch(/gate unit failed/);
    const gateResults = (await api('GET', `/reviews/${review.id}/gates`)).body.results;
    expect(gateResults.find((result: any) => result.name === 'unit')).toMatchObject({ status: 'fail', exitCode: 1, headSha: made.featureSha });
    expect(gateResults.find((result: any) => result.name === 'unit').output).toContain('add() does not add');
    // The review's own checkout was not where the gate ran: it still has the buggy head, untouched.
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // People are principals: the operator cannot dismiss without a reason, can contest with one.
    expect((await api('POST', `/reviews/${review.id}/findings/${bug.id}/dismiss`, {})).status).toBe(400);
    const contested = await api('POST', `/reviews/${review.id}/findings/${bug.id}/contest`, { reason: 'I think it is intended' });
    expect(contested.body).toMatchObject({ status: 'contested', statusReason: 'I think it is intended' });
    expect((await api('GET', `/reviews/${review.id}/verdict`)).body.current.verdict).toBe('block');

    // Exports.
    const sarif = await api('GET', `/reviews/${review.id}/export.sarif`);
    expect(sarif.body.version).toBe('2.1.0');
    expect(sarif.body.runs[0].results).toHaveLength(2);
    expect(sarif.body.runs[0].results[0]).toMatchObject({ ruleId: 'bug', level: 'error', locations: [{ physicalLocation: { artifactLocation: { uri: 'src/math.js' }, region: { startLine: 3, endLine: 3 } } }] });
    const markdown = await fetch(`${fixture.server.url}/api/workspaces/${fixture.workspaceId}/reviews/${review.id}/export.md`, { headers: { authorization: `Bearer ${fixture.server.token}` } });
    expect(markdown.headers.get('content-type')).toMatch(/text\/markdown/);
    const text = await markdown.text();
    expect(text).toContain('## Verdict: BLOCK');
    expect(text).toContain('**P0 bug**');

    // Idempotent per repository + head: the same head returns the same review.
    const again = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, reReview: false, review: { id: review.id, spaceId: review.spaceId } });

    // Re-review: the head moves (the bug is fixed); findings carry forward and the delta says so.
    git(repo, 'checkout', '-q', 'feature');
    await writeFile(join(repo, 'src', 'math.js'), MATH_MAIN + 'export function triple(a) {\n  return add(add(a, a), a);\n}\n');
    git(repo, 'commit', '-qam', 'fix add()');
    git(repo, 'checkout', '-q', 'main');
    const second = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(second.body).toMatchObject({ created: false, reReview: true, review: { id: review.id, round: 2 } });
    findings = (await api('GET', `/reviews/${review.id}/findings`)).body.findings;
    expect(findings.find((finding: any) => finding.id === bug.id).carry).toBe('notVerifiable');
    expect(findings.find((finding: any) => finding.id !== bug.id).carry).toBe('stillOpen');
    expect((await api('POST', `/reviews/${review.id}/findings/${bug.id}/resolve`, {})).body.status).toBe('resolved');
    // Ship needs evidence for every agent axis on this head (TRUTH-3): a person assesses them.
    for (const axis of ['correctness', 'security', 'tests']) {
      expect((await api('POST', `/reviews/${review.id}/assessments`, { axis, assessment: 'pass', basis: `re-read src/math.js at round 2 for ${axis}` })).status).toBe(201);
    }
    const finalized = await api('POST', `/reviews/${review.id}/finalize`, { headline: 'round 2' });
    expect(finalized.body.verdict).toMatchObject({ verdict: 'ship', round: 2, delta: { summary: '1 resolved · 0 new · 1 still open' } });
    expect(finalized.body.verdict.axes).toEqual(expect.arrayContaining([expect.objectContaining({ axis: 'unit', kind: 'gated', status: 'pass' })]));
  });

  it('hostile refs and bad input are 400s naming the field and change nothing', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const made = await makeReviewRepo();
    repo = made.repo;
    const before = (await api('GET', '/spaces')).body.spaces.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ repoPath: repo, base: '--upload-pack=touch /tmp/pwned', head: 'feature' }, 'base'],
      [{ repoPath: repo, base: 'main', head: '--output=/tmp/x' }, 'head'],
      [{ repoPath: repo, base: 'main', head: 'no-such-branch' }, 'head'],
      [{ repoPath: repo, base: 'main', head: 'feature\nmain' }, 'head'],
      [{ repoPath: repo, base: 'main..feature', head: 'feature' }, 'base'],
      [{ repoPath: '/nonexistent/repo', base: 'main', head: 'feature' }, 'repoPath'],
      [{ repoPath: repo, base: 'main', head: 'feature', reviewers: ['ghost'] }, 'reviewers.0'],
    ];
    for (const [body, field] of cases) {
      const response = await api('POST', '/reviews', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.field).toBe(field);
    }
    expect((await api('GET', '/spaces')).body.spaces.length).toBe(before);
    expect((await api('GET', '/reviews')).body.reviews).toEqual([]);
    expect((await api('GET', '/reviews/rev_nope')).status).toBe(404);
    expect((await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'a', command: 'x' }, { name: 'a', command: 'y' }] })).body.error.field).toBe('gates.1.name');
  });

  it('dispatches the default reviewers in parallel up to the concurrency setting; the rest start as earlier ones end', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const made = await makeReviewRepo();
    repo = made.repo;
    expect((await api('PATCH', '/settings', { reviewConcurrency: 2 })).status).toBe(200);
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    // Each reviewer records one repo-wide note; the first two hold their reply until both have started.
    let started = 0;
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    for (const name of ['qa', 'architect', 'engineer']) {
      fixture.model.scriptFor(
        reviewer(name),
        reply(async () => {
          started += 1;
          if (started === 2) release();
          if (name !== 'engineer') await bothStarted;
          return reply().tool('add_review_node', { type: 'question', priority: 'P3', confidence: 0.5, body: `note from ${name}` });
        }),
        reply().text(`${name} done.`),
      );
    }
    const dispatched = await api('POST', `/reviews/${opened.body.review.id}/dispatch`);
    expect(dispatched.status).toBe(202);
    expect(dispatched.body.dispatched.map((entry: any) => [entry.agent, entry.queued])).toEqual([
      ['qa', false],
      ['architect', false],
      ['engineer', true],
    ]);
    await waitForRuns(dispatched.body.dispatched.filter((entry: any) => entry.runId).map((entry: any) => entry.runId));
    const deadline = Date.now() + 30_000;
    let bodies: string[] = [];
    while (Date.now() < deadline) {
      bodies = (await api('GET', `/reviews/${opened.body.review.id}/findings`)).body.findings.map((finding: any) => finding.body);
      if (bodies.length === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(bodies.sort()).toEqual(['note from architect', 'note from engineer', 'note from qa']);
  });
});
