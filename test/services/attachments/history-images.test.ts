/**
 * TOOL-3 with CTX-1 on the built-in harness: an image attached in an earlier turn stays in the
 * history later turns send — as the provider's image block in that turn's user message — while the
 * window has room for it; it is counted at the provider's rate (width × height / 750), and when the
 * window is tight it is elided to a one-line placeholder naming the file, like an old tool result.
 */
import { deflateSync, crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-model-server.js';

/** A real RGB PNG of the given size (black; its rows compress to almost nothing). */
function png(width: number, height: number): string {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((1 + width * 3) * height);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]).toString('base64');
}

let fixture: HarnessFixture;
beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
});
afterAll(async () => {
  await fixture?.dispose();
});

async function newConversation(title: string): Promise<string> {
  const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function turn(conversationId: string, agentId: string | undefined, text: string, attachments?: Array<{ name: string; data: string }>): Promise<any> {
  const posted = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${conversationId}/messages`, { text, ...(agentId ? { agentId } : {}), ...(attachments ? { attachments } : {}) });
  expect(posted.status, JSON.stringify(posted.body)).toBe(202);
  const detail = await fixture.waitForRun(posted.body.run.id, 60_000);
  expect(detail.run.state, JSON.stringify(detail.run)).toBe('completed');
  return detail;
}

/** What filled the window when the run ended (its context_usage event). */
function usageOf(detail: any): { budget: number; total: number; history: number } {
  return detail.events.findLast((event: any) => event.type === 'context_usage').data.usage;
}

describe('earlier turns\' images in the built-in harness\'s history (TOOL-3, CTX-1)', () => {
  it('built-in harness in chat: an image attached in turn 1 is an Anthropic image block of that turn\'s message in turn 2, counted at the provider\'s rate', async () => {
    const conversationId = await newConversation('Keeps the picture');
    const picture = png(300, 150);
    fixture.model.reset();
    fixture.model.script(reply().text('A black rectangle.'), reply().text('It was black.'));
    const first = await turn(conversationId, undefined, 'What is this?', [{ name: 'shape.png', data: picture }]);
    // 300 × 150 / 750 = 60 tokens, counted with the message (its base64 characters are not).
    const text = await turn(conversationId, undefined, 'What colour was it?');
    expect(usageOf(first).history).toBeGreaterThanOrEqual(60);

    const [, second] = await fixture.model.waitForRequests(2);
    const messages = second!.body!.messages as Array<{ role: string; content: string | Array<Record<string, any>> }>;
    const earlier = messages.find((message) => Array.isArray(message.content) && message.content.some((block) => block.type === 'text' && block.text === 'What is this?'))!;
    expect(earlier.role).toBe('user');
    expect(earlier.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: picture } });
    expect(second!.lastUserText).toBe('What colour was it?');
    expect(JSON.stringify(messages)).not.toContain('elided');
    expect(text.run.state).toBe('completed');
  }, 120_000);

  it('built-in harness in chat, window tight: the earlier image is elided to a placeholder naming it, the text kept, and the turn completes', async () => {
    const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/agents`, { name: 'gpt-looker', modelId: 'gpt-5.4' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agentId = created.body.id as string;
    const conversationId = await newConversation('Tight window');
    // 1000 × 1000 / 750 = 1,334 tokens.
    const picture = png(1000, 1000);
    fixture.model.reset();
    fixture.model.script(reply().text('A black square.'));
    const first = await turn(conversationId, agentId, 'Describe this.', [{ name: 'square.png', data: picture }]);
    const [sent] = await fixture.model.waitForRequests(1);
    expect(JSON.stringify(sent!.body!.messages)).toContain(`data:image/png;base64,${picture}`);

    // A budget that holds the conversation without the image but not with it: half the image short.
    const budget = usageOf(first).total - 667;
    // A small window keeps half of itself for input, so this window's budget is exactly half of it.
    const patched = await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${agentId}`, { contextSize: budget * 2 });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    fixture.model.script(reply().text('Black, as I said.'));
    const second = await turn(conversationId, agentId, 'What colour was it?');
    expect(usageOf(second).budget).toBe(budget);

    const requests = await fixture.model.waitForRequests(2);
    const messages = requests[1]!.body!.messages as Array<{ role: string; content: unknown }>;
    expect(JSON.stringify(messages)).not.toContain('image_url');
    expect(messages).toContainEqual({ role: 'user', content: '[image square.png elided to keep the context window]\n\nDescribe this.' });
    expect(requests[1]!.lastUserText).toBe('What colour was it?');
  }, 120_000);
});
