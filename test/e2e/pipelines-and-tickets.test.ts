/**
 * Browser tests of the pipelines list, the pipeline editor, a pipeline run as a live graph (PIPE-1, UI) and the tickets
 * board per project (ORC-4, UI), on the real server in real chromium, desktop and phone width.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { RecordingLauncher, validProposal } from '../support/orchestration-fixtures.js';
import type { TestServer } from '../support/test-server.js';

let suite: LiveAppSuite | undefined;
let server: TestServer;
let ui: TestBrowser;
let ws: string;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

describe('web app: pipelines (PIPE-1)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('lists pipelines with their source, triggers and last runs; a run is a live graph that follows the engine', async () => {
    const created = await api('POST', '/pipelines', {
      name: 'Release train',
      triggers: [{ type: 'manual' }, { type: 'schedule', cron: '30 2 * * 1-5' }, { type: 'webhook' }, { type: 'event', event: 'ticket.done' }],
      nodes: [
        { key: 'check', type: 'condition', expression: 'true' },
        { key: 'ship', type: 'human.gate', dependsOn: ['check'], prompt: 'Ship it?' },
        { key: 'after', type: 'condition', dependsOn: ['ship'], expression: '{{ship.decision}} == approved' },
        { key: 'never', type: 'condition', dependsOn: ['check'], expression: 'false' },
        { key: 'skipped', type: 'condition', dependsOn: ['never'], expression: 'true' },
      ],
    });
    expect(created.status).toBe(201);
    const pipelineId = created.body.pipeline.id as string;
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/w/${ws}/pipelines`);
    const item = page.locator(`[data-testid="pipeline-item"][data-pipeline-id="${pipelineId}"]`);
    await item.waitFor({ timeout: 60_000 });
    const triggers = await item.getByTestId('pipeline-triggers').textContent();
    for (const word of ['manual', 'schedule 30 2 * * 1-5', 'webhook', 'on ticket.done']) expect(triggers).toContain(word);
    expect(await item.textContent()).toContain('API');
    expect(await item.getByTestId('pipeline-last-runs').textContent()).toContain('No runs yet.');
    // MODE-5: a room mode that is not exactly chat|review|plan is shown as the validator's warning on its node.
    const roomy = await api('POST', '/pipelines', { name: 'Odd room', nodes: [{ key: 'room', type: 'messaging.createSpace', name: 'Room', extras: { mode: 'orchestrate' } }] });
    expect(roomy.status).toBe(201);
    await page.reload();
    const warned = page.locator(`[data-testid="pipeline-item"][data-pipeline-id="${roomy.body.pipeline.id}"] .pipeline-warnings`);
    await warned.waitFor({ timeout: 60_000 });
    expect(await warned.textContent()).toContain('Step “room”: Not a room mode (chat, review or plan): the room opens in review.');
    expect(await item.locator('.pipeline-warnings').count()).toBe(0);

    // Start it from the list: the run appears among the last runs.
    await item.getByRole('button', { name: 'Run now' }).click();
    const chip = item.getByTestId('pipeline-run-link').first();
    await chip.waitFor({ timeout: 60_000 });
    const runId = (await api('GET', `/pipelines/${pipelineId}/runs`)).body.runs[0].id as string;
    await chip.click();
    await page.getByTestId('pipeline-graph').waitFor({ timeout: 60_000 });
    expect(page.url()).toContain(`/pipeline-runs/${runId}`);

    // The graph: every node, the gate waiting for the operator, the false branch skipped.
    const nodeState = (key: string) => page.locator(`[data-testid="pipeline-node"][data-node-key="${key}"]`).getAttribute('data-state');
    await expect.poll(() => page.getByTestId('pipeline-node').count(), { timeout: 60_000 }).toBe(5);
    await expect.poll(() => nodeState('ship'), { timeout: 60_000 }).toBe('running');
    expect(await nodeState('check')).toBe('done');
    await expect.poll(() => nodeState('skipped'), { timeout: 60_000 }).toBe('skipped');
    await page.locator('[data-testid="pipeline-node"][data-node-key="ship"]').click();
    const inspector = page.getByTestId('pipeline-node-inspector');
    await expect.poll(() => inspector.textContent(), { timeout: 60_000 }).toContain('your approval');
    await expect.poll(() => inspector.getByRole('link', { name: 'decide in the inbox' }).count(), { timeout: 60_000 }).toBe(1);
    await ui.screenshot('pipeline-run-waiting');

    // The operator decides elsewhere (the API): the open page follows through pipelineRun.updated events.
    const run = (await api('GET', `/pipeline-runs/${runId}`)).body;
    const approvalId = run.nodes.find((node: any) => node.key === 'ship').approvalId;
    expect((await api('POST', `/approvals/${approvalId}/decision`, { decision: 'approve' })).status).toBe(200);
    await expect.poll(() => nodeState('after'), { timeout: 60_000 }).toBe('done');
    expect(await nodeState('ship')).toBe('done');
    await expect.poll(async () => (await page.getByTestId('pipeline-run-status').textContent()) ?? '', { timeout: 60_000 }).toBe('finished');
    expect(await page.getByTestId('pipeline-run-progress').textContent()).toBe('5/5 settled');
    await expect.poll(() => page.getByTestId('inspector-state').textContent(), { timeout: 60_000 }).toBe('done');
    await ui.screenshot('pipeline-run-finished');

    // Phone width: the graph and the inspector are both there, one under the other.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByTestId('pipeline-graph').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('pipeline-node').count(), { timeout: 60_000 }).toBe(5);
    const graph = await page.getByTestId('pipeline-graph').boundingBox();
    const aside = await page.getByRole('complementary', { name: 'Node inspector' }).boundingBox();
    expect(graph!.width).toBeLessThanOrEqual(390);
    expect(aside!.y).toBeGreaterThanOrEqual(graph!.y + graph!.height - 1);
    await ui.screenshot('pipeline-run-phone');
    await page.goto(`${server.url}/w/${ws}/pipelines`);
    await page.getByTestId('recent-runs').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('recent-runs').textContent()).toContain('Release train');
    await ui.screenshot('pipelines-list-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('web app: pipeline editor (PIPE-1)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('creates a pipeline in the form with problems shown at their fields as they are typed, saves it, sees it listed, then edits it through the text view', async () => {
    const { page } = ui;
    const agents = (await api('GET', '/agents')).body.agents as Array<{ id: string; name: string }>;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/w/${ws}/pipelines`);
    // Offered once the page knows this person's role (an admin's): wait for it rather than for time.
    const newPipeline = page.getByRole('link', { name: 'New pipeline' });
    await newPipeline.waitFor({ timeout: 60_000 });
    await newPipeline.click();
    const editor = page.getByTestId('pipeline-editor');
    await editor.waitFor({ timeout: 60_000 });
    const field = (path: string) => page.locator(`[data-field="${path}"]`);
    const problemsAt = (path: string) => field(path).getByTestId('field-problem').allTextContents().then((lines) => lines.join(' | '));
    const status = () => page.getByTestId('pipeline-validation-status').getAttribute('data-status');
    const save = page.getByRole('button', { name: /^(Create|Save) pipeline$/ });

    await field('name').locator('input').fill('Nightly check');
    await field('nodes.0.key').locator('input').fill('research');
    await field('nodes.0.prompt').locator('textarea').fill('Check the build');
    // A schedule that is not a cron: the server's check names the field, in words; Save stays off.
    await editor.getByRole('button', { name: 'Add trigger' }).click();
    await field('triggers.1.cron').locator('input').fill('61 9 * * 1-5');
    await expect.poll(() => problemsAt('triggers.1.cron'), { timeout: 60_000 }).toContain('Not a schedule this server understands');
    expect(await problemsAt('triggers.1.cron')).not.toMatch(/\b[a-z]+[A-Z][a-zA-Z]*\b|triggers\.|bad_cron/);
    expect(await save.isDisabled()).toBe(true);
    await field('triggers.1.cron').locator('input').fill('30 9 * * 1-5');
    await expect.poll(() => problemsAt('triggers.1.cron'), { timeout: 60_000 }).toBe('');

    // A second step after the first; making the first depend on it closes a loop, named at Depends on.
    await editor.getByRole('button', { name: 'Add step' }).click();
    await field('nodes.1.key').locator('input').fill('ship');
    await field('nodes.1.type').locator('select').selectOption('human.gate');
    await field('nodes.1.prompt').locator('textarea').fill('Ship {{research}}?');
    await field('nodes.0.dependsOn').getByLabel('ship').check();
    await expect.poll(() => problemsAt('nodes.0.dependsOn'), { timeout: 60_000 }).toContain('goes round in a loop: research → ship → research');
    await expect.poll(() => page.getByTestId('pipeline-problem-list').textContent(), { timeout: 60_000 }).toContain('Step “research” · Depends on');
    expect(await save.isDisabled()).toBe(true);
    await field('nodes.0.dependsOn').getByLabel('ship').uncheck();
    await expect.poll(status, { timeout: 60_000 }).toBe('valid');
    // The text view follows the form.
    expect(JSON.parse(await page.locator('#pipeline-definition-text').inputValue())).toMatchObject({ name: 'Nightly check', nodes: [{ key: 'research' }, { key: 'ship', dependsOn: ['research'] }] });
    await expect.poll(() => save.isEnabled(), { timeout: 60_000 }).toBe(true);
    await ui.screenshot('pipeline-editor-new');
    // Leaving with the pipeline unsaved asks first; staying keeps the form. Save then leaves without asking.
    const editorPath = new URL(page.url()).pathname;
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Org chart' }).click();
    await expect.poll(() => dialogs, { timeout: 30_000 }).toEqual(['Discard your unsaved changes to this pipeline?']);
    expect(new URL(page.url()).pathname).toBe(editorPath);
    expect(await field('name').locator('input').inputValue()).toBe('Nightly check');
    await save.click();

    const listed = page.getByTestId('pipeline-item').filter({ hasText: 'Nightly check' });
    await listed.waitFor({ timeout: 60_000 });
    await expect.poll(() => listed.getByTestId('pipeline-triggers').textContent(), { timeout: 60_000 }).toContain('schedule 30 9 * * 1-5');
    const pipelineId = (await listed.getAttribute('data-pipeline-id'))!;
    expect((await api('GET', `/pipelines/${pipelineId}`)).body.definition).toMatchObject({ name: 'Nightly check', nodes: [{ key: 'research', agentId: agents[0]!.id }, { key: 'ship', type: 'human.gate' }] });

    // Edit: an agent the workspace does not have, typed in the text view, is named at the form's Agent field.
    const edit = listed.getByRole('link', { name: 'Edit Nightly check' });
    await edit.waitFor({ timeout: 60_000 });
    await edit.click();
    await editor.waitFor({ timeout: 60_000 });
    const text = page.locator('#pipeline-definition-text');
    await expect.poll(async () => JSON.parse(await text.inputValue()).name, { timeout: 60_000 }).toBe('Nightly check');
    const definition = JSON.parse(await text.inputValue());
    definition.name = 'Nightly checks';
    definition.nodes[0].agentId = 'agt_nobody';
    await text.fill(JSON.stringify(definition, null, 2));
    await expect.poll(() => problemsAt('nodes.0.agentId'), { timeout: 60_000 }).toContain('This agent is not in this workspace');
    await expect.poll(() => field('name').locator('input').inputValue(), { timeout: 60_000 }).toBe('Nightly checks');
    expect(await save.isDisabled()).toBe(true);

    // Phone width: the form stacks under nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate('document.documentElement.scrollWidth'), { timeout: 60_000 }).toBeLessThanOrEqual(390);
    await expect
      .poll(async () => {
        const [name, kind] = await Promise.all([field('nodes.0.key').boundingBox(), field('nodes.0.type').boundingBox()]);
        return name && kind ? kind.y > name.y : false;
      }, { timeout: 60_000 })
      .toBe(true);
    await ui.screenshot('pipeline-editor-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    await field('nodes.0.agentId').locator('select').selectOption(agents[0]!.id);
    await expect.poll(status, { timeout: 60_000 }).toBe('valid');
    await expect.poll(() => save.isEnabled(), { timeout: 60_000 }).toBe(true);
    await save.click();
    await page.getByTestId('pipeline-item').filter({ hasText: 'Nightly checks' }).waitFor({ timeout: 60_000 });
    await expect.poll(async () => (await api('GET', `/pipelines/${pipelineId}`)).body.name, { timeout: 60_000 }).toBe('Nightly checks');
    expect((await api('GET', `/pipelines/${pipelineId}`)).body.definition.nodes[0].agentId).toBe(agents[0]!.id);
  });
});

describe('web app: tickets board per project (ORC-4)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('shows an orchestration project\'s tickets by state with their dependencies and links; moving one goes through the tickets service', async () => {
    const app = server.running.app;
    const launcher = new RecordingLauncher();
    await app.orchestrations.useLauncher(launcher);
    const space = (await api('POST', '/spaces', { name: 'Billing', mode: 'orchestrate' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Billing export' })).body;
    const lead = (await api('GET', '/agents')).body.agents[0];
    const proposed = await app.orchestrations.propose({ workspaceId: ws, conversationId: conversation.id, spaceId: space.id, agentId: lead.id, runId: null, proposal: validProposal(lead.id, 'board-writer') });
    expect(proposed.ok).toBe(true);
    const orcId = (proposed as { orchestration: { id: string } }).orchestration.id;
    expect((await api('POST', `/orchestrations/${orcId}/approve`, { revision: 1 })).status).toBe(200);
    const orc = await (async () => {
      for (;;) {
        const body = (await api('GET', `/orchestrations/${orcId}`)).body;
        if (body.projectId && body.pipelineRunId) return body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const project = (await api('GET', `/projects/${orc.projectId}`)).body;
    expect(project).toMatchObject({ orchestrationId: orcId, conversationId: conversation.id, pipelineRunId: orc.pipelineRunId });
    // A ticket outside the project stays off its board.
    await api('POST', '/tickets', { title: 'Unrelated chore' });

    const { page } = ui;
    await page.goto(`${server.url}/w/${ws}/tickets?project=${orc.projectId}`);
    const board = page.getByTestId('ticket-board');
    await board.waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('ticket-column').count()).toBe(6);
    const open = page.locator('[data-testid="ticket-column"][data-status="open"]');
    await expect.poll(() => open.getByTestId('ticket-card').count(), { timeout: 60_000 }).toBe(4);
    expect(await board.textContent()).not.toContain('Unrelated chore');
    const card = (title: string) => page.getByTestId('ticket-card').filter({ has: page.locator('.ticket-title', { hasText: new RegExp(`^${title}$`) }) });
    // Dependencies are visible, with their state.
    expect(await card('Export endpoint').getByTestId('ticket-deps').textContent()).toContain('Design the export schema (open)');
    expect(await card('Review everything').getByTestId('ticket-deps').textContent()).toMatch(/Export endpoint \(open\).*Document the export \(open\).*waiting on 2/);
    // Links: the orchestration's conversation and the ticket's node of the pipeline run.
    const links = card('Export endpoint').locator('.ticket-links a');
    expect(await links.evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')))).toEqual([
      `/w/${ws}/pipeline-runs/${orc.pipelineRunId}?node=api`,
      `/w/${ws}/c/${conversation.id}`,
    ]);
    await ui.screenshot('tickets-board-open');

    // The operator moves "Design the export schema" to done: the server has it, the column and the dependants follow.
    await card('Design the export schema').getByLabel('Move Design the export schema').selectOption('done');
    const done = page.locator('[data-testid="ticket-column"][data-status="done"]');
    await expect.poll(() => done.getByTestId('ticket-card').count(), { timeout: 60_000 }).toBe(1);
    const schemaTicket = (await api('GET', `/tickets?projectId=${orc.projectId}`)).body.tickets.find((ticket: any) => ticket.title === 'Design the export schema');
    expect(schemaTicket.status).toBe('done');
    await expect.poll(async () => (await card('Export endpoint').getByTestId('ticket-deps').textContent()) ?? '', { timeout: 60_000 }).toContain('Design the export schema (done)');
    // The tickets service refuses a state that does not exist, naming the field, and changes nothing.
    const bad = await api('PATCH', `/tickets/${schemaTicket.id}`, { status: 'shipped' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('status');
    expect((await api('GET', `/tickets/${schemaTicket.id}`)).body.ticket.status).toBe('done');
    await ui.screenshot('tickets-board-moved');

    // Phone width: the columns stack.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await board.waitFor({ timeout: 60_000 });
    const columns = await page.getByTestId('ticket-column').evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().x));
    expect(new Set(columns).size).toBe(1);
    await ui.screenshot('tickets-board-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
