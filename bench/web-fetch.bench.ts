/**
 * What `web_fetch` costs (TOOL-1) against a local HTTP server: the whole tool call (policy hop
 * decision, one resolution pinned for the connection, the request, Readability and turndown) on a
 * 60 KB article, next to a bare `fetch()` of the same page as the peer, and a repeat served from the
 * run's cache. Medians of several calls in one process; the host is named by a rule (loopback).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolContext } from '../src/tools/define-tool.js';
import { webFetchTool } from '../src/tools/web-fetch-tool.js';
import { NodeWorktree } from '../src/worktree/node-worktree.js';
import { median, type BenchFigure } from './figure.js';

const CALLS = 40;

const PARAGRAPH = '<p>The parser reads every dialect we know of; its error messages name the line and the column, and it recovers after a mistake so one typo does not hide the next. </p>';
const ARTICLE = `<!doctype html><html><head><title>Bench article</title><style>body{}</style><script>void 0</script></head><body><nav>${'<a href="/x">link</a> '.repeat(50)}</nav><article><h1>Release notes</h1>${PARAGRAPH.repeat(360)}<ul>${'<li>item</li>'.repeat(40)}</ul></article><footer>footer</footer></body></html>`;

function context(runState: Map<string, unknown>): ToolContext {
  return {
    worktree: new NodeWorktree(process.cwd()),
    signal: new AbortController().signal,
    runId: 'run_bench',
    runState,
    decideEgress: async () => ({ decision: 'allow', hostNamedByRule: true, explanation: 'bench: a rule names 127.0.0.1' }),
  };
}

async function timeMs(action: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export default async function webFetchBenchmark(): Promise<BenchFigure[]> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(ARTICLE) });
    response.end(ARTICLE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/article`;
  try {
    // Warm both paths once (module init, JIT) before measuring.
    await webFetchTool.execute({ url }, context(new Map()));
    await (await fetch(url)).text();
    const toolCalls: number[] = [];
    const bareFetches: number[] = [];
    const cachedCalls: number[] = [];
    for (let call = 0; call < CALLS; call += 1) {
      const runState = new Map<string, unknown>();
      toolCalls.push(
        await timeMs(async () => {
          const result = await webFetchTool.execute({ url }, context(runState));
          if (result.isError) throw new Error(result.content);
        }),
      );
      cachedCalls.push(await timeMs(() => webFetchTool.execute({ url }, context(runState))));
      bareFetches.push(await timeMs(async () => (await fetch(url)).text()));
    }
    const tool = median(toolCalls);
    const bare = median(bareFetches);
    return [
      { metric: 'web_fetch_ms', value: Number(tool.toFixed(2)), unit: 'ms' },
      { metric: 'bare_fetch_ms', value: Number(bare.toFixed(2)), unit: 'ms' },
      { metric: 'web_fetch_vs_bare_fetch', value: Number((tool / bare).toFixed(2)), unit: 'x' },
      { metric: 'web_fetch_cached_ms', value: Number(median(cachedCalls).toFixed(3)), unit: 'ms' },
      { metric: 'page_bytes', value: Buffer.byteLength(ARTICLE), unit: 'bytes' },
    ];
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
