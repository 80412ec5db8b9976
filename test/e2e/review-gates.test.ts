/**
 * Review gates in the browser against the real backend (REV-4, TRUTH-3, UI): a person configures the
 * repository's gates on the review page (a bad name is refused, naming the row), runs them, watches
 * them progress, and sees each gate's output and exit code; the verdict names the failing gate and the
 * axes nobody assessed; a person's assessment with its basis makes an axis pass. Gates run in the real
 * OS sandbox on a copy of head.
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
let headSha: string;
let reviewId: string;

beforeAll(async () => {
  server = await startAppServer();
  ws = (await createSeededWorkspace(server, 'Acme')).id;
  const made = await makeReviewRepo();
  repo = made.repo;
  headSha = made.featureSha;
  const opened = await server.api('POST', `/api/workspaces/${ws}/reviews`, { repoPath: repo, base: 'main', head: 'feature', title: 'Add triple()' });
  reviewId = opened.body.review.id;
  ui = await launchBrowser();
  await signIn(ui.page, server);
}, 300_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
  await rm(repo, { recursive: true, force: true });
});

describe('review gates (REV-4, TRUTH-3, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('configures gates in the UI, runs them with progress, shows each output and exit code; a person records an assessment', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/reviews/${reviewId}`);
    await expect.poll(() => page.getByTestId('live-status').textContent()).toBe('Live');
    const gates = page.getByRole('region', { name: 'Gates' });
    await gates.getByTestId('no-gates').waitFor();
    // Nothing assessed and no gate: the verdict says so instead of shipping.
    const banner = page.getByTestId('verdict-banner');
    await expect.poll(() => banner.textContent()).toContain('HOLD');
    expect(await banner.getByTestId('axis').filter({ hasText: 'security' }).textContent()).toBe('security: not assessed');
    expect(await banner.textContent()).toContain('axis security was not assessed: no reviewer recorded an assessment of security');

    // Configure two gates; a name the server refuses is shown on its row and nothing is saved.
    await gates.getByRole('button', { name: 'Configure gates' }).click();
    await gates.getByLabel('Gate 1 name').fill('Lint Check');
    await gates.getByLabel('Gate 1 command').fill('test -f src/math.js && echo math-present');
    await gates.getByRole('button', { name: 'Add gate' }).click();
    // The unit gate waits a moment before its check, so its "running" state can be seen.
    await gates.getByLabel('Gate 2 name').fill('unit');
    await gates.getByLabel('Gate 2 command').fill('sleep 2; sh check.sh');
    await gates.getByRole('button', { name: 'Save gates' }).click();
    await expect.poll(() => gates.locator('.gate-row').first().textContent()).toContain('short lowercase slug');
    expect((await server.api('GET', `/api/workspaces/${ws}/review-gates?repoPath=${encodeURIComponent(repo)}`)).body.gates).toEqual([]);
    await gates.getByLabel('Gate 1 name').fill('lint');
    await gates.getByRole('button', { name: 'Save gates' }).click();
    await gates.getByRole('button', { name: 'Configure gates' }).waitFor();
    expect((await server.api('GET', `/api/workspaces/${ws}/review-gates?repoPath=${encodeURIComponent(repo)}`)).body.gates).toEqual([
      { name: 'lint', command: 'test -f src/math.js && echo math-present' },
      { name: 'unit', command: 'sleep 2; sh check.sh' },
    ]);
    // The saved list is shown once the server's answer arrives; the button can appear a moment earlier.
    await expect.poll(() => gates.textContent()).toContain('No gate has run on this head yet.');

    // Run: the page shows each gate's progress as the server reports it, then the results.
    await gates.getByRole('button', { name: 'Run gates' }).click();
    const progress = gates.getByTestId('gate-progress');
    await expect.poll(() => progress.textContent(), { timeout: 30_000 }).toContain('unit (2 of 2): running…');
    expect(await progress.textContent()).toContain('lint (1 of 2): passed');
    const unit = gates.locator('[data-testid="gate-result"][data-gate="unit"]');
    await unit.waitFor({ timeout: 60_000 });
    expect(await unit.getByTestId('gate-exit').textContent()).toBe('exit code 1');
    expect(await unit.getByTestId('gate-output').textContent()).toContain('add() does not add');
    expect(await unit.textContent()).toContain(`on ${headSha.slice(0, 10)}`);
    const lint = gates.locator('[data-testid="gate-result"][data-gate="lint"]');
    expect(await lint.getByTestId('gate-exit').textContent()).toBe('exit code 0');
    expect(await lint.getByTestId('gate-output').textContent()).toContain('math-present');
    await expect.poll(() => gates.getByRole('button', { name: 'Run gates' }).isEnabled(), { timeout: 30_000 }).toBe(true);

    // The verdict now has the gates' evidence: the failing one blocks and is named.
    await expect.poll(() => banner.textContent()).toContain('BLOCK');
    expect(await banner.textContent()).toContain('gate unit failed: exit 1');
    expect(await banner.getByTestId('axis').filter({ hasText: 'lint' }).textContent()).toBe('⚙ lint: pass');

    // A person records an assessment: without a basis it is refused; with one, the axis passes and says why.
    const assessments = page.getByRole('region', { name: 'Assessments' });
    await assessments.getByLabel('Axis to assess').selectOption('security');
    await assessments.getByRole('button', { name: 'Record assessment' }).click();
    await expect.poll(() => assessments.textContent()).toMatch(/say what you checked/i);
    expect(await banner.getByTestId('axis').filter({ hasText: 'security' }).textContent()).toBe('security: not assessed');
    await assessments.getByLabel('What you checked').fill('triple() and add() take numbers only; nothing reaches a shell or eval');
    await assessments.getByRole('button', { name: 'Record assessment' }).click();
    await expect.poll(() => banner.getByTestId('axis').filter({ hasText: 'security' }).textContent()).toBe('security: pass');
    expect(await banner.getByTestId('axis-evidence').filter({ hasText: 'security' }).textContent()).toBe('security: assessed by operator: triple() and add() take numbers only; nothing reaches a shell or eval');
    await expect.poll(() => assessments.getByTestId('assessment').textContent(), { timeout: 60_000 }).toContain('security: pass by operator');
    expect(await banner.textContent()).toContain('axis correctness was not assessed');
    await ui.screenshot('review-gates');
  });
});
