import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ONE_PIXEL_PNG_BASE64 } from '../support/fake-image-server.js';
import { startImageFixture } from '../support/image-fixture.js';

/**
 * OpenAI Image (RLY-7) end to end: a message to an `openai-image` agent goes through the run
 * executor to the images API (a fake `/v1/images/generations`), the image is stored in the workspace
 * under its content hash and served by the authenticated image route; the reply shows it.
 */
let started: Awaited<ReturnType<typeof startImageFixture>> | null = null;

afterEach(async () => {
  await started?.dispose();
  started = null;
});

async function start(options: { mode?: 'chat' | 'plan' } = {}) {
  started = await startImageFixture(options);
  return started;
}

describe('OpenAI Image transport (RLY-7)', () => {
  it('generates an image: the prompt reaches the images API, the image is stored by content hash and served to the operator', async () => {
    const { f, images } = await start();
    images.script({ created: 1, data: [{ b64_json: ONE_PIXEL_PNG_BASE64 }], usage: { input_tokens: 12, output_tokens: 40 } });
    const detail = await f.waitForRun(await f.send('a lighthouse at dusk'));
    expect(detail.run.state).toBe('completed');
    expect(images.requests).toHaveLength(1);
    expect(images.requests[0]!.body).toMatchObject({ model: 'gpt-image-1', prompt: expect.stringContaining('a lighthouse at dusk'), n: 1 });
    expect(images.requests[0]!.authorization).toBe('Bearer sk-image-test');

    const bytes = Buffer.from(ONE_PIXEL_PNG_BASE64, 'base64');
    const name = `${createHash('sha256').update(bytes).digest('hex')}.png`;
    expect(await readdir(join(f.workspaceDir, 'images'))).toEqual([name]);
    const messages = await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${f.conversationId}/messages`);
    const reply = (messages.body.messages as Array<{ role: string; content: string }>).find((message) => message.role === 'assistant');
    expect(reply?.content).toBe(`![Generated image](/api/workspaces/${f.workspaceId}/images/${name})`);

    const served = await fetch(`${f.url}/api/workspaces/${f.workspaceId}/images/${name}`, { headers: { authorization: `Bearer ${f.token}` } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('the image route refuses a request without the operator token, a name that is not a stored hash (400 naming `name`) and an unknown image (404)', async () => {
    const { f } = await start();
    const base = `${f.url}/api/workspaces/${f.workspaceId}/images`;
    const unknown = `${'a'.repeat(64)}.png`;
    expect((await fetch(`${base}/${unknown}`)).status).toBe(401);
    const auth = { headers: { authorization: `Bearer ${f.token}` } };
    const bad = await fetch(`${base}/..%2F..%2Foperator-token`, auth);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('name');
    expect((await fetch(`${base}/${unknown}`, auth)).status).toBe(404);
  });

  it('modes have no effect: the plan mode sends the same request (no mode words), and the capabilities tell the web to mark every mode as having no effect (RLY-3)', async () => {
    const { f, images } = await start({ mode: 'plan' });
    images.script({ data: [{ b64_json: ONE_PIXEL_PNG_BASE64 }] });
    const detail = await f.waitForRun(await f.send('a red square'));
    expect(detail.run.state).toBe('completed');
    expect(images.requests[0]!.body.prompt).toBe('a red square');
    const matrix = await f.api('GET', '/api/honesty-matrix');
    expect(matrix.body.transports.find((declared: { adapterId: string }) => declared.adapterId === 'openai-image')).toMatchObject({ relayModes: 'none' });
  });
});
