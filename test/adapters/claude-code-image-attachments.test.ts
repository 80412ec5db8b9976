/**
 * TOOL-3 with the real `claude` binary: an image the operator attaches to a message reaches the model
 * as an Anthropic `image` block — the transport writes the user message to Claude Code's stream-json
 * input as content blocks, and the CLI passes them on. The scripted model server is the only stand-in.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';

/** A real 1×1 PNG and a real 1×1 GIF. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const GIF_BASE64 = Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1').toString('base64');

let fixture: ClaudeCodeFixture | null = null;
afterAll(async () => {
  await fixture?.dispose();
});

type Block = { type: string; text?: string; source?: { type: string; media_type: string; data: string } };

/** The content blocks of every user turn the model was sent, newest request last. */
function userBlocks(request: { body: Record<string, unknown> | null }): Block[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string | Block[] }>;
  return messages.filter((message) => message.role === 'user').flatMap((message) => (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content));
}

describe('Claude Code carries image attachments (TOOL-3)', () => {
  it('chat: the attached images reach the model as image blocks with their bytes and media types, before the text', async () => {
    fixture = await startClaudeCodeFixture({ operatorConnected: false, transport: { sandbox: 'none', allowUnsandboxed: true } });
    const f = fixture;
    f.model.script(reply().text('I see two pixels.'));
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`, {
      text: 'What is in these pictures?',
      agentId: f.agentId,
      attachments: [
        { name: 'pixel.png', data: PNG_BASE64 },
        { name: 'dot.gif', data: GIF_BASE64 },
      ],
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    const detail = await f.waitForRun(posted.body.run.id, 120_000);
    expect(detail.run.state, JSON.stringify(detail.run)).toBe('completed');

    const requests = f.model.requests.filter((request) => request.path.startsWith('/v1/messages') && !request.path.includes('count_tokens'));
    const carrying = requests.filter((request) => userBlocks(request).some((block) => block.type === 'image'));
    expect(carrying.length).toBeGreaterThan(0);
    const blocks = userBlocks(carrying.at(-1)!);
    const images = blocks.filter((block) => block.type === 'image');
    expect(images.map((block) => block.source)).toEqual([
      { type: 'base64', media_type: 'image/png', data: PNG_BASE64 },
      { type: 'base64', media_type: 'image/gif', data: GIF_BASE64 },
    ]);
    // The operator's text follows its images in the same user turn.
    const gifAt = blocks.indexOf(images[1]!);
    expect(blocks.slice(gifAt + 1).some((block) => block.type === 'text' && block.text?.includes('What is in these pictures?'))).toBe(true);

    // The next turn resumes Claude Code's session, whose history still holds the images.
    const before = f.model.requests.length;
    f.model.script(reply().text('Still two.'));
    const next = await f.send('And now?');
    expect((await f.waitForRun(next, 120_000)).run.state).toBe('completed');
    const later = f.model.requests.slice(before).filter((request) => request.path.startsWith('/v1/messages') && userBlocks(request).some((block) => block.text?.includes('And now?')));
    expect(later.length).toBeGreaterThan(0);
    expect(userBlocks(later.at(-1)!).filter((block) => block.type === 'image').map((block) => block.source?.data)).toEqual([PNG_BASE64, GIF_BASE64]);
  }, 180_000);
});
