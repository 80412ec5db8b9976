import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ONE_PIXEL_PNG_BASE64 } from '../support/fake-image-server.js';
import { startImageFixture } from '../support/image-fixture.js';

/**
 * The images API's answer is hostile (RLY-7, OpenAI Image): a URL is never fetched (no request from
 * the server to wherever a provider points), bytes that are not PNG/JPEG/WebP (HTML, SVG with script)
 * are refused by their magic bytes, an oversized or malformed answer is refused, and nothing refused
 * is stored.
 */
let started: Awaited<ReturnType<typeof startImageFixture>> | null = null;
afterEach(async () => {
  await started?.dispose();
  started = null;
});

async function storedImages(workspaceDir: string): Promise<string[]> {
  return readdir(join(workspaceDir, 'images')).catch(() => []);
}

describe('hostile images-API answers (RLY-7)', () => {
  it('an answer that names a URL fails the run and the URL is never fetched', async () => {
    const hits: string[] = [];
    const bait = createServer((request, response) => {
      hits.push(request.url ?? '');
      response.end('x');
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    try {
      started = await startImageFixture();
      const { f, images } = started;
      images.script({ data: [{ url: `http://127.0.0.1:${(bait.address() as AddressInfo).port}/operator-token` }] });
      const detail = await f.waitForRun(await f.send('draw'));
      expect(detail.run.state).toBe('failed');
      expect(detail.run.error).toMatch(/URL, which the Control Center never fetches/);
      expect(hits).toEqual([]);
      expect(await storedImages(f.workspaceDir)).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => bait.close(() => resolve()));
    }
  });

  it.each([
    ['HTML', Buffer.from('<html><script>alert(1)</script></html>').toString('base64'), /not a PNG, JPEG or WebP/],
    ['SVG with a script', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64'), /not a PNG, JPEG or WebP/],
    ['malformed base64', 'iVBOR!!not-base64', /not valid base64/],
  ])('%s in b64_json is refused and nothing is stored', async (_label, b64, reason) => {
    started = await startImageFixture();
    const { f, images } = started;
    images.script({ data: [{ b64_json: b64 }] });
    const detail = await f.waitForRun(await f.send('draw'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(reason);
    expect(await storedImages(f.workspaceDir)).toEqual([]);
  });

  it('an image over the size cap is refused before it is decoded, and nothing is stored', async () => {
    started = await startImageFixture({ maxImageBytes: 32 });
    const { f, images } = started;
    images.script({ data: [{ b64_json: ONE_PIXEL_PNG_BASE64 }] });
    const detail = await f.waitForRun(await f.send('draw'));
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/larger than the 32-byte limit/);
    expect(await storedImages(f.workspaceDir)).toEqual([]);
  });
});
