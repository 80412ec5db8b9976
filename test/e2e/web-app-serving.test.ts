/** src/server/web-app.ts: the app is served without shadowing /api, /mcp, /openapi.json, /healthz. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { startAppServer } from '../support/e2e/app-server.js';
import { WEB_DIST_DIR } from '../support/e2e/ensure-web-build.js';
import type { TestServer } from '../support/test-server.js';


let server: TestServer;

beforeAll(async () => {
  server = await startAppServer();
}, 300_000);

afterAll(async () => {
  await server?.dispose();
});

describe('serving the web app (§13)', () => {
  it('answers / and client routes with index.html, without auth, never cached', async () => {
    for (const path of ['/', '/w/ws_1/c/cv_2', '/w/ws_1/settings/agents/ag_3?x=1']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<div id="root"></div>');
    }
  });

  it('serves hashed assets with a long cache; a missing asset is a 404, not the app', async () => {
    const assets = await readdir(join(WEB_DIST_DIR, 'assets'));
    const script = assets.find((name) => name.endsWith('.js'))!;
    const response = await fetch(`${server.url}/assets/${script}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('javascript');
    expect(response.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${server.url}/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('not_found');
  });

  it('does not shadow /api, /mcp, /openapi.json or /healthz', async () => {
    const unknownApi = await fetch(`${server.url}/api/no-such-route`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.headers.get('content-type')).toContain('application/json');
    expect(((await unknownApi.json()) as any).error.code).toBe('not_found');
    const unauthenticated = await fetch(`${server.url}/api/workspaces`);
    expect(unauthenticated.status).toBe(401);
    const mcp = await fetch(`${server.url}/mcp/whatever`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(mcp.headers.get('content-type') ?? '').not.toContain('text/html');
    expect((await fetch(`${server.url}/healthz`)).headers.get('content-type')).toContain('application/json');
    const openapi = await fetch(`${server.url}/openapi.json`);
    expect(openapi.headers.get('content-type')).toContain('application/json');
    const document = (await openapi.json()) as any;
    expect(Object.keys(document.paths)).not.toContain('/*');
    expect(Object.keys(document.paths)).not.toContain('/');
  });

  it('sends precompressed brotli or gzip to browsers that accept it, the plain file otherwise (UI: compressed assets)', async () => {
    /** A raw GET (fetch would decode the body itself and hide the encoding). */
    const get = (path: string, acceptEncoding: string | null) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        const req = httpRequest(`${server.url}${path}`, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      });
    const assets = await readdir(join(WEB_DIST_DIR, 'assets'));
    const script = assets.find((name) => /^index-.*\.js$/.test(name))!;
    const original = await readFile(join(WEB_DIST_DIR, 'assets', script));

    const brotli = await get(`/assets/${script}`, 'gzip, deflate, br');
    expect(brotli.status).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers['content-type']).toContain('javascript');
    expect(String(brotli.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotli.body.length).toBeLessThan(original.length / 2);
    expect(brotliDecompressSync(brotli.body).equals(original)).toBe(true);

    const gzip = await get(`/assets/${script}`, 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(original)).toBe(true);

    const plain = await get(`/assets/${script}`, null);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(original)).toBe(true);

    // The app shell (index.html for a client route) too, still never cached.
    const shell = await get('/w/ws_1/c/cv_2', 'br');
    expect(shell.headers['cache-control']).toBe('no-cache');
    expect(shell.headers['content-type']).toContain('text/html');
    const html = shell.headers['content-encoding'] === 'br' ? brotliDecompressSync(shell.body) : shell.body;
    expect(html.toString()).toContain('<div id="root"></div>');
  });

  it('serves the favicon the page links to', async () => {
    const page = await (await fetch(`${server.url}/`)).text();
    expect(page).toContain('href="/favicon.svg"');
    const icon = await fetch(`${server.url}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toContain('image/svg+xml');
  });

  it('refuses paths that climb out of the dist directory', async () => {
    const response = await fetch(`${server.url}/..%2f..%2fpackage.json`);
    const text = await response.text();
    expect(text).not.toContain('"name": "control-center"');
  });
});
