/**
 * Browser tests (real chromium, real server, scripted model) for the operator's screens: policy in the
 * UI (POL-3..5), run control with controls a transport lacks disabled with the reason (HAR-5, ADP-1),
 * the run tree and run page with time and cost (HAR-6), plan-free cost per agent, people beside
 * agents (AG-4), auto-titled and renamable conversations, one voice for errors and no raw internal
 * names on any screen. Desktop and phone widths; screenshots under test-output/e2e/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

let suite: LiveAppSuite | undefined;
let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;

beforeAll(async () => {
  suite = await startLiveAppSuite('Policy Co');
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const noSidewaysScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

/** Internal names a person should never read: effect classes, autonomy ids, capability flags, spec ids, error classes. */
const RAW_NAMES =
  /\b(?:fileDelete|fileWriteOutsideWorktree|gitCommit|gitPush|prCreate|prPublish|vendorSyncWrite|networkEgress|secretAccess|packageInstall|processSpawn|workspaceMutation|sandboxControl|proposeOnly|askFirst|actWithApproval|actFreely|pauseResume|adapterId|plan_exit|neverRun|[A-Z][a-z]+Error)\b|\b(?:POL|HAR|AG|PLAN|MODE|SEC|ADP|RLY|CAP|SBX|ORC|PIPE|SKL|UI|REV|TKT|PR)-\d+\b/;

async function openConversation(page: Page, spaceName: string, title?: string): Promise<{ spaceId: string; conversationId: string }> {
  const space = (await api('POST', '/spaces', { name: spaceName })).body;
  const conversation = (await api('POST', `/spaces/${space.id}/conversations`, title ? { title } : {})).body;
  await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
  await page.getByTestId('composer-input').waitFor();
  await expect.poll(() => page.getByTestId('live-status').textContent()).toBe('Live');
  return { spaceId: space.id, conversationId: conversation.id };
}

async function send(page: Page, text: string): Promise<string> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  const accepted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/messages'));
  await input.press('Enter');
  const response = await accepted;
  expect(response.status()).toBe(202);
  return ((await response.json()) as { run: { id: string } }).run.id;
}

async function waitForRunEnd(runId: string): Promise<any> {
  await expect.poll(async () => (await api('GET', `/runs/${runId}`)).body.run.state, { timeout: 60_000 }).toMatch(/completed|failed|cancelled/);
  return (await api('GET', `/runs/${runId}`)).body;
}

let runConversation: { spaceId: string; conversationId: string };
let finishedRunId: string;

describe('policy in the UI (POL-3..5)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('shows every scope’s rules, explains the probe, creates and deletes rules, forgets remembered choices, and turns the four-level dial', async () => {
    const { page } = ui;
    await page.setViewportSize(DESKTOP);
    const space = (await api('POST', '/spaces', { name: 'Ops' })).body;
    const agents = (await api('GET', '/agents')).body.agents as Array<{ id: string; name: string }>;
    const ceo = agents.find((agent) => agent.name === 'ceo') ?? agents[0]!;
    expect((await api('POST', '/policy/rules', { scope: 'agent', scopeId: ceo.id, match: { kind: 'command', prefix: 'rm -rf' }, decision: 'deny' })).status).toBe(201);
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'fingerprint', fingerprint: 'fp-touch-notes' }, decision: 'allow', note: 'remembered: touch notes.txt' })).status).toBe(201);

    await page.goto(`${server.url}/w/${ws}/settings/policy`);
    const rules = page.getByRole('table', { name: 'Rules' });
    await rules.getByRole('row', { name: /Commands starting with “rm -rf”/ }).waitFor();
    expect(await rules.getByRole('row', { name: /rm -rf/ }).textContent()).toContain(`Agent “${ceo.name}”`);
    expect(await rules.getByRole('row', { name: /rm -rf/ }).textContent()).toContain('refused');

    // A rule that needs a space, without one: the error names the field in plain words, nothing is created.
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Applies to').selectOption('space');
    await form.getByLabel('Command start', { exact: true }).fill('git push');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByRole('alert').filter({ hasText: 'Scope:' }).waitFor();
    expect((await api('GET', '/policy/rules')).body.rules).toHaveLength(2);

    await form.getByLabel('Applies to').selectOption('workspace');
    await form.getByLabel('Then').selectOption('ask');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await rules.getByRole('row', { name: /Commands starting with “git push”/ }).waitFor();
    const created = ((await api('GET', '/policy/rules')).body.rules as any[]).find((rule) => rule.match.kind === 'command' && rule.match.prefix === 'git push');
    expect(created).toMatchObject({ scope: 'workspace', decision: 'ask' });

    // The probe names the rule that decides and says why, in words.
    await page.getByLabel('Command', { exact: true }).fill('git push origin main');
    await page.getByRole('button', { name: 'Check' }).click();
    const answer = page.getByTestId('probe-answer');
    await answer.filter({ hasText: 'would ask you first' }).waitFor();
    expect(await answer.textContent()).toContain('Decided by a rule of this workspace: Commands starting with “git push” → asks you first.');
    expect(await answer.textContent()).toContain('pushes to a remote');
    await ui.screenshot('policy-desktop');

    // Remembered choices: listed with what was remembered, and forgotten with one click.
    const remembered = page.getByRole('table', { name: 'Remembered choices' });
    await remembered.getByRole('button', { name: 'Forget “touch notes.txt”' }).click();
    await expect.poll(async () => ((await api('GET', '/policy/rules')).body.rules as any[]).some((rule) => rule.match.kind === 'fingerprint')).toBe(false);
    await page.getByText('Nothing remembered').waitFor();

    await rules.getByRole('button', { name: 'Delete Commands starting with “git push”' }).click();
    await expect.poll(async () => ((await api('GET', '/policy/rules')).body.rules as any[]).some((rule) => rule.id === created.id)).toBe(false);

    // The dial: all four levels, proposeOnly included, and the probe follows it.
    const dial = page.getByRole('radiogroup', { name: 'Autonomy of Ops' });
    expect(await dial.getByRole('radio').count()).toBe(4);
    await dial.getByRole('radio', { name: 'Propose only' }).check();
    await expect.poll(async () => (await api('GET', `/spaces/${space.id}`)).body.autonomy).toBe('proposeOnly');
    await page.getByLabel('In space').selectOption(space.id);
    await page.getByLabel('Command', { exact: true }).fill('touch a.txt');
    await page.getByRole('button', { name: 'Check' }).click();
    await answer.filter({ hasText: 'would be refused' }).waitFor();
    expect(await answer.textContent()).toContain('Propose only');

    await page.setViewportSize(PHONE);
    await page.reload();
    await page.getByRole('radiogroup', { name: 'Autonomy of Ops' }).waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('policy-phone');
    await page.setViewportSize(DESKTOP);
  });
});

describe('run control (HAR-5, HAR-6)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('take over pauses the turn; the operator’s words reach it on resume; the run tree and run page show time and cost', async () => {
    const { page } = ui;
    runConversation = await openConversation(page, 'Runs', 'Run control');
    const rule = (await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' })).body;
    model.script(reply().tool('bash', { command: 'touch y.txt' }), reply().text('Finished with the blue one.'));
    const runId = await send(page, 'make a file');
    // The turn asks before touching a file: it is blocked on its approval when the operator takes over.
    let approval: any;
    await expect
      .poll(async () => (approval = ((await api('GET', '/approvals?status=pending')).body.approvals as any[]).find((entry) => entry.runId === runId)), { timeout: 30_000 })
      .toBeTruthy();
    const requestsBefore = model.requests.length;
    const controls = page.getByTestId('live-turn').getByTestId('run-controls');
    const takeOver = controls.getByRole('button', { name: 'Take over' });
    await expect.poll(() => takeOver.isEnabled(), { timeout: 30_000 }).toBe(true);
    await takeOver.click();
    // One state at a time: the turn reads "paused", no longer "running" as well.
    await expect.poll(() => page.getByTestId('live-turn').getByTestId('turn-state').textContent(), { timeout: 30_000 }).toBe('paused');
    expect((await api('GET', `/runs/${runId}/controls`)).body.paused).toBe(true);
    await ui.screenshot('run-control-take-over');
    await controls.getByLabel('The turn is paused. Your instructions:').fill('Use the blue one.');
    await controls.getByRole('button', { name: 'Send and resume' }).click();
    await expect.poll(async () => (await api('GET', `/runs/${runId}/controls`)).body.paused).toBe(false);
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' })).status).toBe(200);
    await waitForRunEnd(runId);
    finishedRunId = runId;
    // The model's next call after the take-over carries the operator's words.
    expect(model.requests[requestsBefore]!.lastUserText).toContain('Use the blue one.');
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'Finished with the blue one.' }).waitFor({ timeout: 30_000 });

    const tree = page.getByTestId('run-tree');
    await tree.getByTestId('run-tree-item').filter({ hasText: 'finished' }).first().waitFor();
    expect(await page.getByTestId('conversation-cost').textContent()).toMatch(/1 run · \$/);
    await tree.getByRole('link').first().click();
    await page.getByTestId('run-facts').waitFor();
    expect(await page.getByTestId('run-duration').textContent()).toMatch(/\d+ (ms|s|min)/);
    expect(await page.getByTestId('run-cost').textContent()).toMatch(/\$/);
    const calls = page.getByRole('table', { name: 'Tool calls' });
    expect(await calls.textContent()).toContain('bash');
    expect(await calls.textContent()).toContain('asks you first');
    await ui.screenshot('run-page');
    await api('DELETE', `/policy/rules/${rule.id}`);
  });

  it('controls the run’s transport lacks are shown disabled with the reason; Stop still works (ADP-1)', async () => {
    const { page } = ui;
    await page.setViewportSize(PHONE);
    try {
      await unsupportedControls(page);
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });
});

async function unsupportedControls(page: Page): Promise<void> {
  {
    await page.goto(`${server.url}/w/${ws}/c/${runConversation.conversationId}`);
    await page.getByTestId('composer-input').waitFor();
    await expect.poll(() => page.getByTestId('live-status').textContent()).toBe('Live');
    const relay = (await api('POST', '/agents', { name: 'relay', title: 'Relay', adapterId: 'claude-agent-sdk' })).body;
    model.script(reply().text('working on it…').hang());
    const posted = await api('POST', `/conversations/${runConversation.conversationId}/messages`, { text: 'take your time', agentId: relay.id });
    expect(posted.status).toBe(202);
    const controls = page.getByTestId('live-turn').getByTestId('run-controls');
    const reasons = controls.getByTestId('control-reasons');
    await reasons.waitFor({ timeout: 120_000 });
    await expect.poll(() => reasons.textContent(), { timeout: 60_000 }).toContain('Claude Agent SDK cannot pause a running turn.');
    expect(await reasons.textContent()).toContain('Claude Agent SDK cannot take new instructions while a turn runs.');
    for (const name of ['Pause', 'Steer…', 'Take over']) {
      const button = controls.getByRole('button', { name });
      expect(await button.isDisabled()).toBe(true);
      // The reason is tied to the button for assistive technology, not only shown nearby.
      const describedBy = await button.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${describedBy}"]`).textContent()).toMatch(/Claude Agent SDK cannot/);
    }
    expect(await noSidewaysScroll(page)).toBe(true);
    await ui.screenshot('run-control-unsupported-phone');
    const stop = controls.getByRole('button', { name: 'Stop' });
    expect(await stop.isEnabled()).toBe(true);
    await stop.click();
    await expect.poll(async () => (await api('GET', `/runs/${posted.body.run.id}`)).body.run.state, { timeout: 60_000 }).toBe('cancelled');
  }
}

describe('presence of people and agents (AG-4)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('shows who is here now, live: this window, another window, and the agents', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/c/${runConversation.conversationId}`);
    const people = page.getByTestId('people-here');
    await people.getByText('You', { exact: true }).waitFor();
    const second = await ui.context.newPage();
    try {
      await second.goto(`${server.url}/w/${ws}/c/${runConversation.conversationId}`);
      await people.getByText('You, in another window').waitFor({ timeout: 60_000 });
      expect(await people.getByTestId('person-here').count()).toBe(2);
      await ui.screenshot('presence-two-windows');
      // The other window moves away: it leaves this conversation's list at once.
      await second.goto(`${server.url}/w/${ws}/inbox`);
      await expect.poll(() => people.getByTestId('person-here').count(), { timeout: 60_000 }).toBe(1);
    } finally {
      await second.close();
    }
    // The agents' list loads on its own; wait for it rather than read it once.
    await expect.poll(() => page.locator('.presence-list').last().textContent(), { timeout: 60_000 }).toContain('relay');
  });
});

describe('auto-titled conversations (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('an untitled conversation takes its first message’s line as title, live; the operator renames it, with a clear error for an empty title', async () => {
    const { page } = ui;
    const { conversationId } = await openConversation(page, 'Titles');
    const title = page.getByTestId('conversation-title');
    expect(await title.textContent()).toBe('New conversation');
    model.script(reply().text('On it.'));
    await send(page, 'Fix the login bug on Safari\nIt fails after the redirect.');
    await expect.poll(() => title.textContent()).toBe('Fix the login bug on Safari');
    await page.locator('.sidebar').getByText('Fix the login bug on Safari').first().waitFor();

    await page.getByRole('button', { name: 'Rename conversation' }).click();
    const input = page.locator('#conversation-title-input');
    await input.fill('   ');
    await page.getByRole('button', { name: 'Save' }).click();
    const error = page.getByRole('form', { name: 'Rename conversation' }).getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Title: [A-Z].*\.$/);
    expect((await api('GET', `/conversations/${conversationId}`)).body.title).toBe('Fix the login bug on Safari');
    await input.fill('Safari login');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => title.textContent()).toBe('Safari login');
    expect((await api('GET', `/conversations/${conversationId}`)).body.title).toBe('Safari login');
  });
});

describe('cost and time of a plan (PLAN-3, HAR-6)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('shows actual beside the estimate for the plan and each step, how long each step took, and links a step to its run', async () => {
    const { page } = ui;
    const { spaceId, conversationId } = await openConversation(page, 'Costed', 'Costed plan');
    await api('PATCH', `/spaces/${spaceId}`, { picker: 'Plan' });
    model.script(
      reply().tool('submit_plan', {
        goal: 'Ship the costed change',
        nodes: [
          { key: 'first', title: 'Do the first part', description: 'One.', dependsOn: [] },
          { key: 'second', title: 'Do the second part', description: 'Two.', dependsOn: ['first'] },
        ],
      }),
      reply().text('Plan submitted.'),
      reply().text('First part done.'),
      reply().text('Second part done.'),
    );
    await send(page, 'Plan the costed change');
    let plan: any;
    await expect.poll(async () => (plan = ((await api('GET', `/plans?conversationId=${conversationId}`)).body.plans as any[])[0])?.status, { timeout: 60_000 }).toBe('proposed');
    expect((await api('POST', `/plans/${plan.id}/approve`)).status).toBe(200);
    await expect.poll(async () => (await api('GET', `/plans/${plan.id}`)).body.status, { timeout: 60_000 }).toBe('completed');
    const done = (await api('GET', `/plans/${plan.id}`)).body;

    await page.goto(`${server.url}/w/${ws}/c/${conversationId}`);
    const costLine = page.getByTestId('goal-progress-cost');
    await costLine.waitFor({ timeout: 60_000 });
    // TRUTH-3: the estimate frozen at approval (or why it is unknown), with the recorded actual beside it.
    expect(await costLine.textContent()).toMatch(done.costEstimate.total.usd === null ? /^estimated unknown \([a-z' ]+\) · spent \$[\d.,]+/ : /^estimated \$[\d.,]+ · spent \$[\d.,]+/);

    await page.goto(`${server.url}/w/${ws}/c/${conversationId}?plan=${plan.id}`);
    const studio = page.getByTestId('plan-studio');
    await studio.getByRole('button', { name: /Do the second part/ }).click();
    const inspector = studio.getByTestId('node-inspector');
    await expect.poll(() => inspector.getByTestId('step-actual-cost').textContent(), { timeout: 60_000 }).toMatch(/^\$[\d.,]+ · \d+k? in \/ \d+k? out$/);
    expect(await inspector.getByTestId('step-duration').textContent()).toMatch(/\d+ (ms|s|min)/);
    expect(await studio.getByTestId('cost-actual').textContent()).toMatch(/Spent so far: \$/);
    await ui.screenshot('plan-studio-actual-cost');
    await inspector.getByRole('link', { name: 'Open its run' }).click();
    await page.getByTestId('run-facts').waitFor();
    const second = done.nodes.find((node: any) => node.key === 'second');
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/runs/${second.runId}`);
  });
});

describe('words a user understands (UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('no screen shows raw class names, internal mode names, capability flags or spec ids', async () => {
    const { page } = ui;
    const agents = (await api('GET', '/agents')).body.agents as Array<{ id: string }>;
    const screens = [
      `/w/${ws}`,
      `/w/${ws}/c/${runConversation.conversationId}`,
      `/w/${ws}/runs/${finishedRunId}`,
      `/w/${ws}/settings/policy`,
      `/w/${ws}/settings/agents/${agents[0]!.id}`,
      `/w/${ws}/settings/general`,
      `/w/${ws}/inbox`,
      `/w/${ws}/org`,
      `/w/${ws}/no-such-page`,
    ];
    for (const path of screens) {
      await page.goto(`${server.url}${path}`);
      await page.locator('.app-body').waitFor();
      await page.waitForLoadState('networkidle');
      const text = String(await page.evaluate('document.body.innerText'));
      expect({ path, raw: RAW_NAMES.exec(text)?.[0] ?? null }).toEqual({ path, raw: null });
    }
  });
});
