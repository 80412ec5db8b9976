/**
 * The review space in the browser against the real backend (REV-2, REV-4, UI): the diff with findings
 * on their lines, filters, the verdict banner with axes and the delta, confirm / contest / dismiss as
 * a person, the author-cannot-confirm rule surfacing as an error, disagreements, finalize, and opening
 * a review from the form (idempotent). Findings by agents are recorded through the review service
 * (what the agents' tools call); the rest goes through the UI.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { signIn, startAppServer } from '../support/e2e/app-server.js';
import { makeReviewRepo } from '../support/review-repo.js';
import { createSeededWorkspace, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ui: TestBrowser;
let ws: string;
let repo: string;
let reviewId: string;

beforeAll(async () => {
  server = await startAppServer();
  ws = (await createSeededWorkspace(server, 'Acme')).id;
  repo = (await makeReviewRepo()).repo;
  await server.api('PUT', `/api/workspaces/${ws}/review-gates`, { repoPath: repo, gates: [{ name: 'unit', command: 'sh check.sh' }] });
  const opened = await server.api('POST', `/api/workspaces/${ws}/reviews`, { repoPath: repo, base: 'main', head: 'feature', title: 'Add triple()' });
  reviewId = opened.body.review.id;
  const agents = (await server.api('GET', `/api/workspaces/${ws}/agents`)).body.agents as Array<{ id: string; name: string }>;
  const qa = agents.find((agent) => agent.name === 'qa')!.id;
  const architect = agents.find((agent) => agent.name === 'architect')!.id;
  const reviews = server.running.app.reviews;
  await reviews.addFinding(ws, reviewId, { kind: 'agent', id: qa }, null, { type: 'bug', priority: 'P0', confidence: 0.9, body: 'add() subtracts.', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 } });
  await reviews.addFinding(ws, reviewId, { kind: 'agent', id: architect }, null, { type: 'suggestion', priority: 'P2', confidence: 0.4, body: 'Looks intentional to me.', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 } });
  await reviews.addFinding(ws, reviewId, { kind: 'agent', id: architect }, null, { type: 'question', priority: 'P3', confidence: 0.3, body: 'Any docs for triple()?' });
  ui = await launchBrowser();
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
  await rm(repo, { recursive: true, force: true });
});

describe('review space (REV-2, REV-4, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('shows the diff with anchored findings, filters, verdict, disagreements; a person confirms, contests, dismisses and finalizes', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/reviews/${reviewId}`);
    const banner = page.getByTestId('verdict-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('BLOCK');
    expect(await banner.textContent()).toContain('current (not finalized)');
    expect(await banner.textContent()).toContain('0 resolved · 3 new · 0 still open');
    // The gate has not run for this head: missing evidence, shown as not run.
    expect(await banner.getByTestId('axis').filter({ hasText: 'unit' }).textContent()).toContain('not run');

    // Findings sit on their line of the diff; the repo-wide one in its own section.
    const file = page.locator('.diff-file[data-path="src/math.js"]');
    await expect.poll(() => file.getByTestId('finding').count()).toBe(2);
    expect(await page.getByRole('region', { name: 'Repository-wide findings' }).getByTestId('finding').count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Disagreements' }).textContent()).toContain('src/math.js:3: P0');

    // Filters.
    await page.getByLabel('Filter by priority').selectOption('P0');
    await expect.poll(() => page.getByTestId('finding-count').textContent()).toBe('1 of 3 finding(s)');
    await page.getByLabel('Filter by priority').selectOption('');
    await expect.poll(() => page.getByTestId('finding-count').textContent()).toBe('3 of 3 finding(s)');

    // A person confirms the P0, then contests it with a reason (it stays in the verdict).
    const bug = page.getByTestId('finding').filter({ hasText: 'add() subtracts.' });
    await bug.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => bug.textContent()).toContain('agreed, ready to confirm');
    await bug.getByRole('button', { name: 'Contest' }).click();
    await bug.getByLabel('Reason').fill('Maybe subtraction is wanted');
    await bug.getByRole('button', { name: 'Contest finding' }).click();
    await expect.poll(() => bug.textContent()).toContain('Reason: Maybe subtraction is wanted');
    const findings = (await server.api('GET', `/api/workspaces/${ws}/reviews/${reviewId}/findings`)).body.findings;
    expect(findings.find((finding: any) => finding.body === 'add() subtracts.')).toMatchObject({ status: 'contested', confirmedBy: [{ kind: 'operator' }] });

    // Dismiss the question with a reason.
    const question = page.getByTestId('finding').filter({ hasText: 'Any docs for triple()?' });
    await question.getByRole('button', { name: 'Dismiss' }).click();
    await question.getByLabel('Reason').fill('Out of scope');
    await question.getByRole('button', { name: 'Dismiss finding' }).click();
    await expect.poll(() => question.textContent()).toContain('dismissed');

    // Finalize: the gate runs in the sandbox, fails, and the published verdict blocks.
    await page.getByRole('button', { name: 'Finalize' }).click();
    await expect.poll(() => banner.textContent(), { timeout: 60_000 }).toContain('published');
    expect(await banner.textContent()).toContain('BLOCK');
    expect(await banner.textContent()).toContain('gate unit failed');
    await ui.screenshot('review-blocked');
  });

  it('a person cannot confirm their own finding; the form reopens an existing review instead of duplicating it', async () => {
    const { page } = ui;
    const own = await server.api('POST', `/api/workspaces/${ws}/reviews/${reviewId}/findings`, { type: 'recommendation', priority: 'P3', confidence: 0.5, body: 'Operator note.' });
    expect(own.status).toBe(201);
    await page.goto(`${server.url}/w/${ws}/reviews/${reviewId}`);
    const card = page.getByTestId('finding').filter({ hasText: 'Operator note.' });
    await card.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => card.getByRole('alert').textContent()).toContain('cannot be confirmed by its own author');

    await page.goto(`${server.url}/w/${ws}/reviews`);
    await page.getByRole('link', { name: 'Add triple()' }).waitFor();
    await page.getByLabel('Repository').fill(repo);
    await page.getByLabel('Head').fill('feature');
    await page.getByLabel('Reviewers').fill('');
    await page.getByRole('button', { name: 'Open review' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Already open: Add triple()');
    expect((await server.api('GET', `/api/workspaces/${ws}/reviews`)).body.reviews).toHaveLength(1);
  });
});
