import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../../support/fake-github.js';
import { makeReviewRepo } from '../../support/review-repo.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../../support/test-server.js';

let server: TestServer;
let github: FakeGitHub;
let workspaceId: string;
let cleanup: string[] = [];
let made: { repo: string; featureSha: string; mainSha: string };

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
const prUrl = () => `${github.webBaseUrl}/acme/math/pull/7`;

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeEach(async () => {
  github = await startFakeGitHub();
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server)).id;
  made = await makeReviewRepo();
  const bareRoot = await mkdtemp(join(tmpdir(), 'cc-fake-gh-'));
  cleanup = [made.repo, bareRoot];
  github.addPullRequest({ owner: 'acme', repo: 'math', number: 7, title: 'Add triple()', source: made.repo, bare: join(bareRoot, 'math.git'), baseBranch: 'main', headSha: made.featureSha, baseSha: made.mainSha });
  const settings = await api('PATCH', '/settings', { githubApiBaseUrl: github.apiBaseUrl, githubWebBaseUrl: github.webBaseUrl, forgeTokens: { github: github.token } });
  expect(settings.status).toBe(200);
  expect(settings.body.forgeTokens).toEqual({ github: 'set' });
});

afterEach(async () => {
  await server?.dispose();
  await github?.close();
  for (const path of cleanup) await rm(path, { recursive: true, force: true });
});

/** Opens the PR review, adds one anchored and one unanchored finding, finalizes (block). */
async function openAndFinalize() {
  const opened = await api('POST', '/reviews', { prUrl: prUrl() });
  expect(opened.status).toBe(201);
  const review = opened.body.review;
  const bug = await api('POST', `/reviews/${review.id}/findings`, { type: 'bug', priority: 'P0', confidence: 0.9, body: 'add() subtracts @everyone <b>bold</b>', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 } });
  expect(bug.status).toBe(201);
  const wide = await api('POST', `/reviews/${review.id}/findings`, { type: 'suggestion', priority: 'P2', confidence: 0.5, body: 'triple() could be a * 3', anchor: { path: 'src/math.js', startLine: 8, endLine: 12 } });
  expect(wide.status).toBe(201);
  expect((await api('POST', `/reviews/${review.id}/findings`, { type: 'question', priority: 'P3', confidence: 0.3, body: 'Is double() still needed?' })).status).toBe(201);
  const finalized = await api('POST', `/reviews/${review.id}/finalize`, { headline: 'add() is broken' });
  expect(finalized.status).toBe(200);
  expect(finalized.body.verdict.verdict).toBe('block');
  return review;
}

describe('the GitHub forge adapter', () => {
  it('opens a review from a PR URL: PR read with the token, head and base fetched over HTTP, the usual review recorded', async () => {
    const opened = await api('POST', '/reviews', { prUrl: prUrl() });
    expect(opened.status).toBe(201);
    const review = opened.body.review;
    expect(review).toMatchObject({ title: 'Add triple() (acme/math#7)', headSha: made.featureSha, baseSha: made.mainSha, mergeBaseSha: made.mainSha, head: 'refs/cc-review/pull/7/head', base: 'refs/cc-review/pull/7/base' });
    expect(review.hunkMap['src/math.js']).toEqual([[3, 3], [9, 11]]);
    expect(opened.body.pullRequest).toEqual({ provider: 'github', owner: 'acme', repo: 'math', number: 7, webUrl: prUrl() });
    const space = (await api('GET', `/spaces/${review.spaceId}`)).body;
    expect(space).toMatchObject({ kind: 'pullRequest', mode: 'review' });
    // The review's repository is the server's own mirror, not anything the caller named.
    expect(review.repoPath.startsWith(server.dataRoot)).toBe(true);
    expect(github.requests.every((request) => request.authorized)).toBe(true);
    expect(github.requests.some((request) => request.path.endsWith('/info/refs'))).toBe(true);

    // Same PR, same head: idempotent.
    const again = await api('POST', '/reviews', { prUrl: `${prUrl()}/files` });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, review: { id: review.id } });
    expect((await api('GET', `/reviews/${review.id}/publication`)).body).toEqual({ pullRequest: opened.body.pullRequest, publication: null });
  });

  it('publishing asks (prPublish), and once approved posts ONE review with inline comments; publishing again posts nothing', async () => {
    const review = await openAndFinalize();
    const asked = await api('POST', `/reviews/${review.id}/publish`);
    expect(asked.status).toBe(202);
    expect(asked.body.publication).toMatchObject({ status: 'awaitingApproval', event: 'REQUEST_CHANGES', commentCount: 2 });
    expect(github.reviews.get('acme/math#7') ?? []).toHaveLength(0);
    const approvalId = asked.body.publication.approvalId;
    const approval = (await api('GET', '/approvals?status=pending')).body.approvals.find((entry: any) => entry.id === approvalId);
    expect(approval).toMatchObject({ kind: 'forgePublish', status: 'pending' });
    expect(JSON.stringify(approval)).not.toContain(github.token);

    // Asking twice while pending: the same publication, no second approval.
    const twice = await api('POST', `/reviews/${review.id}/publish`);
    expect(twice.body).toMatchObject({ created: false, publication: { id: asked.body.publication.id, approvalId } });

    expect((await api('POST', `/approvals/${approvalId}/decision`, { decision: 'approve' })).status).toBe(200);
    const published = await until(async () => {
      const state = (await api('GET', `/reviews/${review.id}/publication`)).body;
      return state.publication?.status === 'published' ? state.publication : null;
    }, 'the publication');
    const posted = github.reviews.get('acme/math#7')!;
    expect(posted).toHaveLength(1);
    expect(published.forgeReviewId).toBe(String(posted[0]!.id));
    expect(posted[0]).toMatchObject({ commit_id: made.featureSha, event: 'REQUEST_CHANGES' });
    expect(posted[0]!.comments).toEqual([
      { path: 'src/math.js', line: 3, side: 'RIGHT', body: expect.stringContaining('**P0 bug**') },
      // 8-12 clipped to the changed range 9-11 (GitHub refuses lines outside the diff).
      { path: 'src/math.js', line: 11, side: 'RIGHT', start_line: 9, start_side: 'RIGHT', body: expect.stringContaining('triple') },
    ]);
    // Agent text is display data: no raw HTML, no mention.
    expect(posted[0]!.comments[0]!.body).not.toMatch(/<b>|@everyone/);
    expect(posted[0]!.body).toContain('BLOCK');
    expect(posted[0]!.body).toContain('Is double() still needed?');

    const republish = await api('POST', `/reviews/${review.id}/publish`);
    expect(republish.status).toBe(200);
    expect(republish.body).toMatchObject({ created: false, publication: { id: published.id, status: 'published' } });
    expect(github.reviews.get('acme/math#7')).toHaveLength(1);
    // The token is in no event.
    const seen: unknown[] = [];
    server.running.app.events.subscribe(workspaceId, (event) => seen.push(event), 0)();
    expect(seen.length).toBeGreaterThan(0);
    expect(JSON.stringify(seen)).not.toContain(github.token);
  });

  it('a rejected approval sends nothing; a prPublish deny rule sends nothing and asks nothing', async () => {
    const review = await openAndFinalize();
    const asked = await api('POST', `/reviews/${review.id}/publish`);
    expect((await api('POST', `/approvals/${asked.body.publication.approvalId}/decision`, { decision: 'reject', reason: 'not yet' })).status).toBe(200);
    const state = (await api('GET', `/reviews/${review.id}/publication`)).body;
    expect(state.publication).toMatchObject({ status: 'rejected', error: 'not yet' });
    expect(github.reviews.get('acme/math#7') ?? []).toHaveLength(0);

    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'prPublish' }, decision: 'deny' })).status).toBe(201);
    const pendingBefore = (await api('GET', '/approvals?status=pending')).body;
    const denied = await api('POST', `/reviews/${review.id}/publish`);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ field: 'prPublish' });
    expect((await api('GET', '/approvals?status=pending')).body).toEqual(pendingBefore);
    expect(github.reviews.get('acme/math#7') ?? []).toHaveLength(0);
    expect(github.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('a crash between posting and recording is healed: our marker on the PR is adopted, not posted again', async () => {
    const review = await openAndFinalize();
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'prPublish' }, decision: 'allow' })).status).toBe(201);
    // The review is already on GitHub (posted before a crash), but the server has no record of it.
    github.reviews.set('acme/math#7', [{ id: 4242, commit_id: made.featureSha, event: 'REQUEST_CHANGES', body: `earlier\n<!-- control-center-review ${review.id} ${made.featureSha} -->`, comments: [] }]);
    const published = await api('POST', `/reviews/${review.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.publication).toMatchObject({ status: 'published', forgeReviewId: '4242' });
    expect(github.reviews.get('acme/math#7')).toHaveLength(1);
  });

  it('bad URL, unknown PR, bad or missing token, unpublishable review: clear 4xx errors that change nothing', async () => {
    const reviewsBefore = (await api('GET', '/reviews')).body.reviews;
    const cases: Array<[unknown, number, string]> = [
      [{ prUrl: 'not a url' }, 400, 'prUrl'],
      [{ prUrl: 'https://evil.example/acme/math/pull/7' }, 400, 'prUrl'],
      [{ prUrl: `${github.webBaseUrl}/acme/math/issues/7` }, 400, 'prUrl'],
      [{ prUrl: `${github.webBaseUrl}/acme/../pull/7` }, 400, 'prUrl'],
      [{ prUrl: `${github.webBaseUrl}/acme/math/pull/8` }, 404, 'prUrl'],
      [{ prUrl: prUrl(), repoPath: made.repo }, 400, 'repoPath'],
      [{ base: 'main', head: 'feature' }, 400, 'repoPath'],
    ];
    for (const [body, status, field] of cases) {
      const answer = await api('POST', '/reviews', body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error.field, JSON.stringify(body)).toBe(field);
    }
    expect((await api('PATCH', '/settings', { forgeTokens: { github: 'ghp_wrong' } })).status).toBe(200);
    const badToken = await api('POST', '/reviews', { prUrl: prUrl() });
    expect(badToken.status).toBe(400);
    expect(badToken.body.error).toMatchObject({ field: 'forgeTokens.github' });
    expect(badToken.body.error.message).toMatch(/401/);
    expect(JSON.stringify(badToken.body)).not.toContain('ghp_wrong');
    expect((await api('PATCH', '/settings', { forgeTokens: { github: null } })).status).toBe(200);
    const noToken = await api('POST', '/reviews', { prUrl: prUrl() });
    expect(noToken.status).toBe(400);
    expect(noToken.body.error).toMatchObject({ field: 'forgeTokens.github' });
    expect((await api('GET', '/reviews')).body.reviews).toEqual(reviewsBefore);

    // A local review has no pull request; a PR review without a verdict cannot be published.
    const local = await api('POST', '/reviews', { repoPath: made.repo, base: 'main', head: 'feature' });
    expect((await api('POST', `/reviews/${local.body.review.id}/publish`)).status).toBe(409);
    expect((await api('PATCH', '/settings', { forgeTokens: { github: github.token } })).status).toBe(200);
    const fromPr = await api('POST', '/reviews', { prUrl: prUrl() });
    const unfinalized = await api('POST', `/reviews/${fromPr.body.review.id}/publish`);
    expect(unfinalized.status).toBe(409);
    expect(unfinalized.body.error.message).toMatch(/finalize it first/);
    expect((await api('GET', `/reviews/${fromPr.body.review.id}/publication`)).body.publication).toBeNull();
  });
});
