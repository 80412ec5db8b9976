/**
 * TOOL-3 in the web app, in a real browser against a real server and the scripted model: files picked
 * with the paperclip, pasted (a screenshot) and dropped on the composer go with the message, the
 * model receives the image blocks, and the conversation shows the images and the text file's link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, type TestBrowser } from '../support/e2e/browser.js';
import { startLiveAppSuite, type LiveAppSuite } from '../support/e2e/app-server.js';
import { reply, type ScriptedModelServer } from '../support/scripted-model-server.js';
import type { TestServer } from '../support/test-server.js';

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let server: TestServer;
let model: ScriptedModelServer;
let ui: TestBrowser;
let ws: string;
let suite: LiveAppSuite | undefined;

beforeAll(async () => {
  suite = await startLiveAppSuite();
  ({ server, model, ui, workspaceId: ws } = suite);
}, 300_000);

afterAll(async () => {
  await suite?.close();
});

const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${ws}${path}`, body);

describe('composer attachments (TOOL-3, UI)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('a picked, a pasted and a dropped file go with the message; the model gets the images; the conversation shows them', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Screenshots' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Look at this' })).body;
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    const input = page.getByTestId('composer-input');
    await input.waitFor();

    // The paperclip's file picker.
    await page.getByTestId('attach-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('the build broke at step 3\n') });
    // A pasted screenshot: a clipboard that carries a file.
    await input.evaluate((element, png) => {
      // The page's own DOM classes (the test's TypeScript has no DOM library).
      const dom = globalThis as any;
      const bytes = Uint8Array.from(atob(png), (character) => character.charCodeAt(0));
      const data = new dom.DataTransfer();
      data.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
      element.dispatchEvent(new dom.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, PNG_BASE64);
    // A file dropped on the composer.
    await page.locator('.composer').evaluate((element, png) => {
      const dom = globalThis as any;
      const bytes = Uint8Array.from(atob(png), (character) => character.charCodeAt(0));
      const data = new dom.DataTransfer();
      data.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      element.dispatchEvent(new dom.DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, PNG_BASE64);
    await expect.poll(() => page.getByTestId('pending-attachment').count()).toBe(3);
    const names = await page.locator('[data-testid="pending-attachment"] .attachment-name').allTextContents();
    expect(names[0]).toBe('notes.txt');
    expect(names[1]).toMatch(/^pasted-.*\.png$/);
    expect(names[2]).toBe('dropped.png');
    await ui.screenshot('composer-attachments');

    model.script(reply().text('Two pixels and a note.'));
    await input.fill('What went wrong?');
    await input.press('Enter');
    await page.locator('[data-testid="message"].message-assistant', { hasText: 'Two pixels and a note.' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('pending-attachment').count()).toBe(0);

    const [request] = await model.waitForRequests(1);
    const user = (request!.body!.messages as Array<{ content: Array<Record<string, any>> }>).at(-1)!;
    expect(user.content.filter((block) => block.type === 'image').map((block) => block.source)).toEqual([
      { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
      { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
    ]);
    expect(user.content.at(-1)!.text).toBe('What went wrong?\n\nAttached file `notes.txt`:\n```\nthe build broke at step 3\n```');

    // The history shows the images (loaded through the authenticated route) and the text file's link.
    const shown = page.locator('[data-testid="message"].message-user [data-testid="message-attachment"]');
    await expect.poll(() => shown.count()).toBe(3);
    const images = page.locator('[data-testid="message"].message-user img.attachment-image');
    await expect.poll(() => images.evaluateAll((elements) => elements.map((element) => (element as unknown as { naturalWidth: number }).naturalWidth))).toEqual([1, 1]);
    expect(await shown.first().textContent()).toContain('notes.txt');
    await ui.screenshot('message-attachments');
  });

  it('a file the server refuses shows its reason and stays in the tray; nothing is sent', async () => {
    const { page } = ui;
    const space = (await api('POST', '/spaces', { name: 'Refusals' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Refused' })).body;
    await page.goto(`${server.url}/w/${ws}/c/${conversation.id}`);
    await page.getByTestId('composer-input').waitFor();
    await page.getByTestId('attach-input').setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: Buffer.from('not really a png') });
    await page.getByTestId('composer-input').fill('look');
    await page.getByTestId('composer-input').press('Enter');
    await page.getByText(/shot\.png.*name says PNG image but the bytes are not/).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('pending-attachment').count()).toBe(1);
    expect((await api('GET', `/conversations/${conversation.id}/messages`)).body.messages).toEqual([]);
  });
});
