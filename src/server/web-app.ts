import { existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npx vite build --config web/vite.config.ts` writes the app (relative to the package root). */
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** First path segments the web app must never answer: the API, MCP, the OpenAPI document and the liveness probe. */
const RESERVED_SEGMENTS = new Set(['api', 'mcp', 'openapi.json', 'healthz', 'readyz', 'metrics']);

/** How many rounds of percent-decoding a path gets before it is refused as too deeply encoded. */
const MAX_DECODE_ROUNDS = 4;

/** The first segment that names something, as a lenient server (or a proxy in front) would read it. */
function firstSegment(path: string): string {
  const segment = path.split('/').find((part) => part !== '' && part !== '.' && part !== '..') ?? '';
  // `;` starts a matrix parameter some servers strip (`/api;x/...` is `/api/...` there).
  return (segment.split(';')[0] ?? '').toLowerCase();
}

/** The path with `.`/`..` segments resolved, empty segments dropped and `;` parameters removed. */
function resolvedPath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    const segment = part.split(';')[0] ?? '';
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

/**
 * SEC-1: whether a request path is, under any reading, a variant of `/api`, `/mcp`, `/openapi.json`,
 * `/healthz`, `/readyz` or `/metrics` — percent-encoded (once or many times), with another letter case, dot segments,
 * duplicate slashes, backslashes or `;` parameters. Such a path never gets the web app: it falls
 * through to the JSON 404, so nothing the public catch-all serves can stand in for an API answer.
 * A path that does not decode cleanly is treated as reserved too.
 */
export function isReservedPath(rawPath: string): boolean {
  let path = rawPath;
  for (let round = 0; ; round += 1) {
    const unified = path.replace(/\\/g, '/');
    if (unified.includes('\0')) return true;
    if (RESERVED_SEGMENTS.has(firstSegment(unified)) || RESERVED_SEGMENTS.has(firstSegment(resolvedPath(unified)))) return true;
    if (!unified.includes('%')) return false;
    if (round === MAX_DECODE_ROUNDS) return true;
    try {
      path = decodeURIComponent(unified);
    } catch {
      return true;
    }
  }
}

/**
 * Serves the React app (§13) from `distDir`: real files as they are (hashed assets cached for a year),
 * and `index.html` for every other GET, so client routes like `/w/ws_1/c/cv_2` survive a reload.
 * `/api`, `/mcp`, `/openapi.json` and `/healthz` are never shadowed: unknown paths there fall through
 * to the server's own JSON 404. Register it after the API routes; the routes it adds are wildcards,
 * which Fastify matches only when no specific route does.
 */
export async function registerWebApp(server: FastifyInstance, distDir: string = DEFAULT_WEB_DIST_DIR): Promise<void> {
  const root = resolve(distDir);
  // serve: false — only the reply.sendFile decorator; routing stays ours, so /api is never shadowed.
  // preCompressed: every sendFile below answers with the build's `.br`/`.gz` twin when the browser
  // accepts it (web/vite.config.ts writes them; UI: compressed assets), with `Vary: Accept-Encoding`.
  await server.register(fastifyStatic, { root, serve: false, wildcard: false, preCompressed: true });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const rawPath = request.url.split('?')[0] ?? '/';
    if (isReservedPath(rawPath)) return reply.callNotFound();
    const path = decodeURIComponent(rawPath);
    const indexFile = join(root, 'index.html');
    if (!existsSync(indexFile)) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built. Run: npx vite build --config web/vite.config.ts (or npm run build:web)\n');
    }
    const relative = normalize(path).replace(/^([/\\])+/, '');
    const candidate = join(root, relative);
    const inside = candidate === root || candidate.startsWith(root + sep);
    if (relative && inside && existsSync(candidate) && statSync(candidate).isFile()) {
      const immutable = relative.startsWith(`assets${sep}`) || relative.startsWith('assets/');
      return reply.sendFile(relative, root, immutable ? { maxAge: '365d', immutable: true } : { maxAge: 0 });
    }
    // A missing file with an extension (a stale asset URL) is a 404, not the app.
    if (extname(relative) !== '' && relative !== 'index.html') return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html', root, { maxAge: 0, cacheControl: false });
  };

  // SEC-1: the one public catch-all; isReservedPath keeps it off every variant of the API's paths.
  const config = { access: 'public' } as const;
  server.get('/', { schema: { hide: true }, config }, handler);
  server.get('/*', { schema: { hide: true }, config }, handler);
}
