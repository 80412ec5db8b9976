import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTACHED_IMAGE_BYTES } from '../../../src/core/attachment-content.js';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-model-server.js';

/** A real 1×1 PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const GIF_BASE64 = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64');
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

let fixture: HarnessFixture;
let messagesPath: string;

beforeAll(async () => {
  fixture = await startHarnessFixture({ operatorConnected: false });
  messagesPath = `/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/messages`;
});

afterAll(async () => {
  await fixture?.dispose();
});

async function messageCount(): Promise<number> {
  return (await fixture.server.api('GET', messagesPath)).body.messages.length;
}

async function createAgent(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const created = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/agents`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** Posts and expects a refusal that names `field` and changed nothing. */
async function expectRefused(body: Record<string, unknown>, field: string, message: RegExp): Promise<void> {
  const before = await messageCount();
  const refused = await fixture.server.api('POST', messagesPath, body);
  expect(refused.status, JSON.stringify(refused.body)).toBe(400);
  expect(refused.body.error.field).toBe(field);
  expect(refused.body.error.message).toMatch(message);
  expect(await messageCount()).toBe(before);
}

describe('message attachments on the built-in harness (TOOL-3)', () => {
  it('built-in harness in chat: an image reaches the model as an Anthropic image block and a text file as a fenced section with its name', async () => {
    fixture.model.reset();
    fixture.model.script(reply().text('I see a pixel.'));
    const runId = await fixture.send('What is in these?', {
      attachments: [
        { name: 'pixel.png', data: PNG_BASE64 },
        { name: 'notes.txt', data: base64('line one\n```\nnot the end of the fence\n') },
      ],
    });
    const run = await fixture.waitForRun(runId);
    expect(run.run.state).toBe('completed');
    const [request] = await fixture.model.waitForRequests(1);
    const messages = request!.body!.messages as Array<{ role: string; content: Array<Record<string, any>> }>;
    const last = messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } });
    const text = last.content.find((block) => block.type === 'text')!.text as string;
    expect(text.startsWith('What is in these?')).toBe(true);
    // The file's own ``` cannot close the section: the fence is longer.
    expect(text).toContain('Attached file `notes.txt`:\n````\nline one\n```\nnot the end of the fence\n````');

    // History lists them; the bytes come back with the type their content was judged to be.
    const listed = (await fixture.server.api('GET', messagesPath)).body.messages as Array<{ role: string; content: string; attachments?: Array<Record<string, unknown>> }>;
    const sent = listed.find((message) => message.content === 'What is in these?')!;
    expect(sent.attachments?.map((attachment) => [attachment.name, attachment.kind, attachment.mediaType])).toEqual([
      ['pixel.png', 'image', 'image/png'],
      ['notes.txt', 'text', 'text/plain'],
    ]);
    const image = await fetch(`${fixture.server.url}/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/attachments/${sent.attachments![0]!.id}`, {
      headers: { authorization: `Bearer ${fixture.server.token}` },
    });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await image.arrayBuffer()).toString('base64')).toBe(PNG_BASE64);
  });

  it('built-in harness in chat on an OpenAI model: the image is a data-URL image part of the user message', async () => {
    fixture.model.reset();
    fixture.model.script(reply().text('A GIF.'));
    const agent = await createAgent({ name: 'gpt-looker', modelId: 'gpt-5.4' });
    const runId = await fixture.send('And this?', { agentId: agent.id, attachments: [{ name: 'dot.gif', data: GIF_BASE64 }] });
    expect((await fixture.waitForRun(runId)).run.state).toBe('completed');
    const [request] = await fixture.model.waitForRequests(1);
    expect(request!.protocol).toBe('openai');
    const user = (request!.body!.messages as Array<{ role: string; content: unknown }>).at(-1)!;
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: `data:image/gif;base64,${GIF_BASE64}` } },
        { type: 'text', text: 'And this?' },
      ],
    });
  });

  it('refuses hostile files by content, size and name, naming the field, and records nothing', async () => {
    // A PNG by name only.
    await expectRefused({ text: 'look', attachments: [{ name: 'shot.png', data: base64('not an image at all') }] }, 'attachments[0].data', /name says PNG image but the bytes are not/);
    // An image over the cap (a PNG header followed by zeros).
    const oversized = Buffer.alloc(MAX_ATTACHED_IMAGE_BYTES + 1);
    Buffer.from(PNG_BASE64, 'base64').copy(oversized);
    await expectRefused({ text: 'look', attachments: [{ name: 'big.png', data: oversized.toString('base64') }] }, 'attachments[0].data', /more than the 3145728-byte limit/);
    // A path where a name belongs.
    await expectRefused({ text: 'look', attachments: [{ name: 'ok.txt', data: base64('fine') }, { name: '../../x', data: base64('x') }] }, 'attachments[1].name', /not a path/);
    // Binary bytes that are neither image nor text.
    await expectRefused({ text: 'look', attachments: [{ name: 'blob.bin', data: Buffer.from([0, 1, 2, 0xff]).toString('base64') }] }, 'attachments[0].data', /neither a PNG, JPEG, WebP or GIF image nor UTF-8 text/);
    // Base64 with junk Buffer.from would have skipped.
    await expectRefused({ text: 'look', attachments: [{ name: 'a.txt', data: 'aGVsbG8*' }] }, 'attachments[0].data', /standard base64/);
    // The picker is not changed by a refused message either.
    const spacePath = `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}`;
    expect((await fixture.server.api('GET', spacePath)).body.picker).not.toBe('Plan');
    await expectRefused({ text: 'look', picker: 'Plan', attachments: [{ name: 'x.png', data: base64('x') }] }, 'attachments[0].data', /not a PNG/);
    expect((await fixture.server.api('GET', spacePath)).body.picker).not.toBe('Plan');
  });

  it('refuses an image for a model that takes none, naming the model; a text file still reaches it', async () => {
    const agent = await createAgent({ name: 'text-only', modelId: 'deepseek/deepseek-chat' });
    await expectRefused({ text: 'look', agentId: agent.id, attachments: [{ name: 'pixel.png', data: PNG_BASE64 }] }, 'attachments', /model deepseek-chat \(agent text-only\) does not take images/);
    fixture.model.reset();
    fixture.model.script(reply().text('read it'));
    const runId = await fixture.send('read this', { agentId: agent.id, attachments: [{ name: 'a.md', data: base64('# Title\n') }] });
    expect((await fixture.waitForRun(runId)).run.state).toBe('completed');
    const [request] = await fixture.model.waitForRequests(1);
    expect(request!.lastUserText).toBe('read this\n\nAttached file `a.md`:\n```\n# Title\n```');
  });

  it.each(['deepseek', 'codex', 'acp', 'copilot', 'copilot-extension', 'grok', 'cursor', 'openai-image'])(
    'refuses an image for an agent whose transport cannot carry it: %s',
    async (adapterId) => {
      const agent = await createAgent({ name: `on-${adapterId}`, adapterId });
      await expectRefused({ text: 'look', agentId: agent.id, attachments: [{ name: 'pixel.png', data: PNG_BASE64 }] }, 'attachments', new RegExp(`\\(\`${adapterId}\`\\), the transport of agent on-${adapterId}, cannot carry image attachments`));
    },
  );

  it('serves an attachment only through its own conversation', async () => {
    const listed = (await fixture.server.api('GET', messagesPath)).body.messages as Array<{ attachments?: Array<{ id: string }> }>;
    const attachmentId = listed.flatMap((message) => message.attachments ?? [])[0]!.id;
    const other = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/conversations`, { title: 'Other' });
    const elsewhere = await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/conversations/${other.body.id}/attachments/${attachmentId}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.field).toBe('attachmentId');
  });
});
