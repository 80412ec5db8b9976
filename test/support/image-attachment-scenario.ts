import { expect } from 'vitest';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';
import { reply } from './scripted-model-server.js';

/** A real 1×1 PNG and a real 1×1 GIF. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const GIF_BASE64 = Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1').toString('base64');

type Block = { type: string; text?: string; source?: { type: string; media_type: string; data: string } };

/** The content blocks of every user turn of a Messages API request. */
function userBlocks(request: { body: Record<string, unknown> | null }): Block[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string | Block[] }>;
  return messages.filter((message) => message.role === 'user').flatMap((message) => (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content));
}

const modelCalls = (f: ClaudeCodeFixture) => f.model.requests.filter((request) => request.path.startsWith('/v1/messages') && !request.path.includes('count_tokens'));

/**
 * TOOL-3 on a runner that takes Anthropic messages as input (Claude Code's stream-json, the Claude
 * Agent SDK's streaming input): an operator's message with a PNG and a GIF reaches the model as image
 * blocks with their bytes and media types, before the text; the next turn resumes the runner's
 * session, whose history still carries them.
 */
export async function runImageAttachmentScenario(f: ClaudeCodeFixture): Promise<void> {
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

  const carrying = modelCalls(f).filter((request) => userBlocks(request).some((block) => block.type === 'image'));
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

  // The next turn resumes the runner's session, whose history still holds the images.
  const before = f.model.requests.length;
  f.model.script(reply().text('Still two.'));
  const next = await f.send('And now?');
  expect((await f.waitForRun(next, 120_000)).run.state).toBe('completed');
  const later = modelCalls(f).filter((request) => request.index >= before && userBlocks(request).some((block) => block.text?.includes('And now?')));
  expect(later.length).toBeGreaterThan(0);
  expect(userBlocks(later.at(-1)!).filter((block) => block.type === 'image').map((block) => block.source?.data)).toEqual([PNG_BASE64, GIF_BASE64]);
}
