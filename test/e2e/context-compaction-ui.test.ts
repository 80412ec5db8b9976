/**
 * CTX-1, CTX-2 in the web app, in a real browser against a real server and the scripted model:
 * `/context` typed in the composer answers with a table (system prompt, skills, tools, history, tool
 * results, free), and `/compact <focus>` leaves a "Context compacted — summary" card with the figures
 * the run recorded — tokens before and after, cost, focus — and the summary collapsed until opened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { BROWSER_TEST_TIMEOUT_MS } from '../support/e2e/browser.js';
import { reply } from '../support/scripted-model-server.js';

let suite: LiveAppSuite;
beforeAll(async () => void (suite = await startLiveAppSuite()), 300_000);
afterAll(() => suite?.close());

const api = (method: string, path: string, body?: unknown) => suite.server.api(method, `/api/workspaces/${suite.workspaceId}${path}`, body);
const count = (value: number) => value.toLocaleString('en-US');

describe('context compaction and /context in the conversation (CTX-1, CTX-2, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('/context is a table of what filled the window; /compact <focus> is a card with the recorded figures and a collapsed summary', async () => {
    const { ui, model, server, workspaceId } = suite;
    const { page } = ui;
    const conversation = (await api('POST', `/spaces/${(await api('POST', '/spaces', { name: 'Compacting' })).body.id}/conversations`, { title: 'Long talk' })).body;
    await page.goto(`${server.url}/w/${workspaceId}/c/${conversation.id}`);
    const input = page.getByTestId('composer-input');
    await input.waitFor();
    model.script(reply().text('First answer.'));
    await input.fill('first question');
    await input.press('Enter');
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'First answer.' }).waitFor({ timeout: 60_000 });

    await input.fill('/context');
    await input.press('Enter');
    const table = page.getByTestId('context-table');
    await table.waitFor({ timeout: 60_000 });
    const parts = await table.getByTestId('context-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-part')));
    expect(parts).toEqual(['system prompt', 'skills', 'tools', 'history', 'tool results', 'free']);
    // The figures are the recorded line's: the same numbers the server wrote in its text.
    const line = (await api('GET', `/conversations/${conversation.id}/messages`)).body.messages.find((message: any) => message.content.startsWith('Context — what filled the window'));
    const systemTokens = /- system prompt: (\d+) tokens/.exec(line.content)![1]!;
    expect((await table.locator('[data-part="system prompt"] td').nth(1).textContent())?.replace(/,/g, '')).toBe(systemTokens);

    model.scriptFor((request) => (request.lastUserText ?? '').includes('hand-over summary'), reply().text('SUMMARY-7731: one question asked, one answer given.').usage({ input: 9_000, output: 40 }));
    await input.fill('/compact the first question');
    await input.press('Enter');
    const card = page.getByTestId('compaction-card');
    await card.waitFor({ timeout: 60_000 });
    const messages = (await api('GET', `/conversations/${conversation.id}/messages`)).body.messages;
    const compactionLine = messages.find((message: any) => message.role === 'system' && message.content.startsWith('Context compacted — summary'));
    const event = (await api('GET', `/runs/${compactionLine.runId}`)).body.events.find((record: any) => record.type === 'context_compacted').data;
    expect(event).toMatchObject({ trigger: 'operator', focus: 'the first question' });
    expect(await card.getByTestId('compaction-tokens').textContent()).toBe(`${count(event.tokensBefore)} → ${count(event.tokensAfter)}`);
    expect(await card.getByTestId('compaction-cost').textContent()).toBe(`$${event.costUsd.toFixed(4)} · ${count(9_000)} tokens in, 40 out`);
    expect(await card.getByTestId('compaction-focus').textContent()).toBe('the first question');
    expect(await card.getByTestId('compaction-trigger').textContent()).toBe('asked with /compact');
    // Collapsed by default: the summary is there but hidden until opened.
    const summary = card.getByTestId('compaction-summary');
    expect(await summary.getAttribute('open')).toBeNull();
    expect(await card.getByText('SUMMARY-7731').isVisible()).toBe(false);
    await summary.locator('summary').click();
    await card.getByText('SUMMARY-7731').waitFor({ state: 'visible' });
    await ui.screenshot('compaction-card');
  });
});
