/**
 * CHG-1 in the web app, in a real browser against a real server, a real repository and the scripted
 * model: the conversation header's Changes view lists what the turns changed with counts and totals,
 * shows a file's diff highlighted, follows a run as it writes, narrows to one turn, fits a phone, and
 * opens a review of the branch in one action.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;
let suite: LiveAppSuite | undefined;
let scratch: string;
let repoPath: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cc-changes-ui-'));
  repoPath = join(scratch, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repoPath]);
  await writeFile(join(repoPath, 'README.md'), 'start\n');
  execFileSync('git', ['add', 'README.md'], { cwd: repoPath });
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'readme'], { cwd: repoPath });
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

async function waitForRunEnd(runId: string): Promise<void> {
  await expect.poll(async () => (await api('GET', `/runs/${runId}`)).body.run?.state, { timeout: 60_000, interval: 200 }).toBe('completed');
}

describe('a conversation’s Changes view (CHG-1, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS * 2 }, () => {
  it('lists files with counts and totals, shows a highlighted diff, follows a run live, narrows to a turn, fits a phone and opens a review', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Changing', repoPath, autonomy: 'actFreely' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Edits' })).body;
    model.script(
      // The second line is the agent's markup: it must show as text, highlighted or not.
      reply().tool('write', { path: 'src/answer.ts', content: 'export const answer: number = 42;\nconst html = "<img src=x onerror=alert(1)>";\n' }),
      reply().tool('bash', { command: "printf 'start\\nmore\\n' > README.md && printf '\\000\\001binary' > logo.bin" }),
      reply().text('Edited.'),
    );
    const first = await api('POST', `/conversations/${conversation.id}/messages`, { text: 'make some edits' });
    await waitForRunEnd(first.body.run.id);

    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    await page.getByRole('button', { name: 'Changes', exact: true }).click();
    const totals = page.getByTestId('changes-totals');
    await expect.poll(() => totals.textContent(), { timeout: 30_000 }).toMatch(/^3 files changed, \+3 −0, 1 binary/);
    const files = page.getByRole('list', { name: 'Changed files' });
    await expect.poll(() => files.locator('.changes-path').allTextContents(), { timeout: 30_000 }).toEqual(['README.md', 'logo.bin', 'src/answer.ts']);

    await files.locator('[data-path="src/answer.ts"]').click();
    const diff = page.getByTestId('file-diff');
    // Highlighted: highlight.js marked `export` and `const` as keywords on the added line.
    await diff.locator('.diff-add .hljs-keyword').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => diff.locator('.diff-add .diff-text').first().textContent()).toBe('+export const answer: number = 42;');
    await expect.poll(() => diff.locator('.diff-add .diff-text').nth(1).textContent()).toBe('+const html = "<img src=x onerror=alert(1)>";');
    expect(await diff.locator('img').count()).toBe(0);
    await files.locator('[data-path="logo.bin"]').click();
    await expect.poll(() => diff.locator('.changes-binary').textContent().catch(() => ''), { timeout: 30_000 }).toBe('Binary file added: none before, 8 bytes after.');
    // Nothing was committed: the review the button opens would not see these files, and the view says so.
    await expect.poll(() => page.getByTestId('uncommitted-note').textContent().catch(() => ''), { timeout: 30_000 }).toBe('3 files are not committed on the branch: a review covers only its commits.');
    await ui.screenshot('changes-desktop');

    // Live: a second turn writes while the view is open; the list follows without a reload.
    model.script(reply().tool('write', { path: 'notes.md', content: '# later\n' }), reply().text('Noted.'));
    const second = await api('POST', `/conversations/${conversation.id}/messages`, { text: 'add notes' });
    await expect.poll(() => totals.textContent(), { timeout: 30_000 }).toMatch(/^4 files changed, \+4 −0/);
    await waitForRunEnd(second.body.run.id);
    await expect.poll(() => files.locator('.changes-path').allTextContents(), { timeout: 30_000 }).toContain('notes.md');

    // One turn: the first turn's files only.
    await page.getByLabel('Turn').selectOption('1');
    await expect.poll(() => files.locator('.changes-path').allTextContents(), { timeout: 30_000 }).toEqual(['README.md', 'logo.bin', 'src/answer.ts']);
    await expect.poll(() => totals.textContent()).toMatch(/^3 files changed/);

    // A phone: the list and the diff stack in one column, and nothing runs off the side.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('Turn').selectOption('');
    await expect.poll(() => totals.textContent(), { timeout: 30_000 }).toMatch(/^4 files changed/);
    await files.locator('[data-path="src/answer.ts"]').click();
    await diff.locator('.diff-add').first().waitFor();
    await expect.poll(() => page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const listBox = await files.boundingBox();
    const diffBox = await diff.boundingBox();
    expect(diffBox!.y).toBeGreaterThan(listBox!.y + listBox!.height - 1);
    await ui.screenshot('changes-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    // One action: a review of the branch against its base, and the review page opens.
    await page.getByRole('button', { name: 'Open a review of these changes' }).click();
    await page.waitForURL(/\/reviews\/[^/]+$/, { timeout: 60_000 });
    const reviewId = page.url().split('/').at(-1)!;
    const review = (await api('GET', `/reviews/${reviewId}`)).body;
    expect(review.repoPath).toBe(repoPath);
    expect(review.head).toBe(`refs/heads/cc/${conversation.id}`);
    await page.locator('.review-header h2').waitFor({ timeout: 30_000 });
  });
});
