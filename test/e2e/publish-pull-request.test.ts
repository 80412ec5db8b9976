/**
 * CHG-2 in the web app, in a real browser against a real server, a real repository and the fake
 * GitHub: the conversation's "Where the work went" panel writes the pull request from the
 * conversation, the operator edits the title, asks to publish, approves the one approval in the
 * conversation, and the panel then links the pull request the forge opened.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { BROWSER_TEST_TIMEOUT_MS } from '../support/e2e/browser.js';
import { commitTurnReplies, git, makeForgeBackedRepository, type ForgeBackedRepository } from '../support/publish-fixture.js';

let suite: LiveAppSuite | undefined;
let github: FakeGitHub | undefined;
let repository: ForgeBackedRepository | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  github = await startFakeGitHub();
  repository = await makeForgeBackedRepository(github);
  const settings = await suite.server.api('PATCH', `/api/workspaces/${suite.workspaceId}/settings`, { githubApiBaseUrl: github.apiBaseUrl, githubWebBaseUrl: github.webBaseUrl, forgeTokens: { github: github.token } });
  if (settings.status !== 200) throw new Error(`settings: ${JSON.stringify(settings.body)}`);
}, 300_000);

afterAll(async () => {
  await suite?.close();
  await github?.close();
  if (repository) await rm(repository.scratch, { recursive: true, force: true });
});

describe('publishing a pull request from the conversation (CHG-2, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('writes the pull request, lets the operator edit it, asks once, and links the opened pull request', async () => {
    const { server, model, ui, workspaceId } = suite!;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const space = (await api('POST', '/spaces', { name: 'Shipping', repoPath: repository!.repoPath, autonomy: 'actFreely' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Greeting feature' })).body;
    model.script(...commitTurnReplies('add a greeting', { 'greeting.txt': 'hello\n' }));
    const posted = await api('POST', `/conversations/${conversation.id}/messages`, { text: 'add a greeting' });
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    await expect.poll(async () => (await api('GET', `/runs/${posted.body.run.id}`)).body.run.state, { timeout: 60_000 }).toBe('completed');

    const { page } = ui;
    await page.goto(`${server.url}/w/${workspaceId}/c/${conversation.id}`);
    const panel = page.getByTestId('publish-panel');
    await panel.getByRole('button', { name: 'Publish pull request…' }).click();
    const title = panel.getByLabel('Pull request title');
    await title.waitFor({ timeout: 30_000 });
    // Written from the conversation before anything is sent.
    await expect.poll(() => title.inputValue(), { timeout: 60_000 }).toBe('Greeting feature');
    await expect.poll(() => panel.getByLabel('Pull request body').inputValue(), { timeout: 60_000 }).toContain('> add a greeting');
    await title.fill('Say hello');
    await panel.getByRole('button', { name: 'Ask to publish' }).click();

    // One approval in the conversation, showing the text that will be sent.
    const approval = page.locator('[data-testid="approval"]', { hasText: 'Publish pull request' });
    await approval.waitFor({ timeout: 30_000 });
    await expect.poll(() => approval.getByTestId('approval-pull-request').textContent(), { timeout: 60_000 }).toContain('Say hello');
    await expect.poll(() => panel.getByTestId('publication-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('awaitingApproval');
    expect(github!.pulls.size).toBe(0);
    await ui.screenshot('publish-awaiting-approval');

    await approval.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => panel.getByTestId('publication-status').getAttribute('data-status'), { timeout: 60_000 }).toBe('published');
    const link = panel.getByTestId('pull-request-link');
    await expect.poll(() => link.textContent(), { timeout: 60_000 }).toMatch(/^Pull request #\d+ \(open\)$/);
    const number = Number((await link.textContent())!.match(/#(\d+)/)![1]);
    expect(await link.getAttribute('href')).toBe(`${github!.webBaseUrl}/acme/app/pull/${number}`);
    expect(github!.pulls.get(`acme/app#${number}`)).toMatchObject({ title: 'Say hello', head: { ref: `cc/${conversation.id}` }, base: { ref: 'main' } });
    expect(git(repository!.barePath, 'rev-parse', `refs/heads/cc/${conversation.id}`)).toBe(git(repository!.repoPath, 'rev-parse', `refs/heads/cc/${conversation.id}`));
    await ui.screenshot('publish-published');
  }, 300_000);
});
