/**
 * A review of a pull request in the browser (REV-2): the operator pastes a PR URL into the
 * open form, the review opens on the server's mirror of the PR, the publish panel links the PR and
 * refuses to publish before the verdict is final, then "Publish to pull request" asks for approval in
 * the Inbox (the `forgePublish` card, in plain words) and, once approved there, exactly one review with
 * its inline comment lands on the fake GitHub. Everything runs against the real server; GitHub is the
 * local fake (test/support/fake-github.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { signIn, startAppServer } from '../support/e2e/app-server.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { makeReviewRepo } from '../support/review-repo.js';
import { createSeededWorkspace, type TestServer } from '../support/test-server.js';

let server: TestServer;
let github: FakeGitHub;
let ui: TestBrowser;
let ws: string;
let made: { repo: string; featureSha: string; mainSha: string };
let bareRoot: string;

beforeAll(async () => {
  github = await startFakeGitHub();
  server = await startAppServer();
  ws = (await createSeededWorkspace(server, 'Acme')).id;
  made = await makeReviewRepo();
  bareRoot = await mkdtemp(join(tmpdir(), 'cc-fake-gh-'));
  github.addPullRequest({ owner: 'acme', repo: 'math', number: 7, title: 'Add triple()', source: made.repo, bare: join(bareRoot, 'math.git'), baseBranch: 'main', headSha: made.featureSha, baseSha: made.mainSha });
  const settings = await server.api('PATCH', `/api/workspaces/${ws}/settings`, { githubApiBaseUrl: github.apiBaseUrl, githubWebBaseUrl: github.webBaseUrl, forgeTokens: { github: github.token } });
  expect(settings.status).toBe(200);
  ui = await launchBrowser();
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
  await github?.close();
  for (const path of [made?.repo, bareRoot]) if (path) await rm(path, { recursive: true, force: true });
});

describe('a pull request review in the browser', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('opens a review from a PR URL, then publishes it to the PR once the operator approves in the Inbox', async () => {
    const { page } = ui;
    const prUrl = `${github.webBaseUrl}/acme/math/pull/7`;
    await page.goto(`${server.url}/w/${ws}/reviews`);
    await page.getByLabel('Pull request').fill(prUrl);
    // The local-repository fields step aside while a PR URL is given.
    expect(await page.getByLabel('Repository').isDisabled()).toBe(true);
    await page.getByLabel('Reviewers').fill('');
    await page.getByRole('button', { name: 'Open review' }).click();
    const opened = page.getByRole('status').filter({ hasText: 'Opened' });
    await expect.poll(() => opened.textContent(), { timeout: 60_000 }).toContain('Add triple() (acme/math#7)');
    const reviews = (await server.api('GET', `/api/workspaces/${ws}/reviews`)).body.reviews;
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ headSha: made.featureSha, baseSha: made.mainSha });
    const reviewId = reviews[0].id as string;

    // The review page: the panel links the PR; publishing waits for a final verdict.
    await opened.getByRole('link').click();
    const panel = page.getByRole('region', { name: 'Pull request' });
    await panel.waitFor();
    expect(await panel.getByRole('link', { name: 'acme/math#7' }).getAttribute('href')).toBe(prUrl);
    const publish = panel.getByRole('button', { name: 'Publish to pull request' });
    expect(await publish.isDisabled()).toBe(true);

    // One anchored finding (as the agents' tools record them), then the operator finalizes.
    const qa = ((await server.api('GET', `/api/workspaces/${ws}/agents`)).body.agents as Array<{ id: string; name: string }>).find((agent) => agent.name === 'qa')!.id;
    await server.running.app.reviews.addFinding(ws, reviewId, { kind: 'agent', id: qa }, null, { type: 'bug', priority: 'P0', confidence: 0.9, body: 'add() subtracts.', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 } });
    await page.reload();
    await page.getByRole('button', { name: 'Finalize' }).click();
    await expect.poll(() => page.getByTestId('verdict-banner').textContent(), { timeout: 60_000 }).toContain('published');
    await expect.poll(() => publish.isDisabled()).toBe(false);

    // Publishing asks first: nothing reaches GitHub until the operator approves.
    await publish.click();
    await expect.poll(() => panel.getByRole('status').textContent()).toContain('waiting for approval in the Inbox (1 inline comment)');
    expect(github.reviews.get('acme/math#7') ?? []).toHaveLength(0);
    await ui.screenshot('review-pr-awaiting-approval');

    await page.goto(`${server.url}/w/${ws}/inbox`);
    const card = page.getByTestId('approval').filter({ hasText: 'Publish review to pull request' });
    await card.waitFor();
    await card.getByRole('button', { name: 'Approve' }).click();

    await page.goto(`${server.url}/w/${ws}/reviews/${reviewId}`);
    await expect.poll(() => page.getByRole('region', { name: 'Pull request' }).getByRole('status').textContent(), { timeout: 30_000 }).toContain('Verdict published (1 inline comment)');
    expect(await page.getByRole('button', { name: 'Publish to pull request' }).count()).toBe(0);
    const posted = github.reviews.get('acme/math#7')!;
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ commit_id: made.featureSha, event: 'REQUEST_CHANGES' });
    expect(posted[0]!.comments).toEqual([expect.objectContaining({ path: 'src/math.js', line: 3, body: expect.stringContaining('add() subtracts.') })]);
    await ui.screenshot('review-pr-published');
  });
});
