import { Worker } from 'node:worker_threads';
import { nestsDeeperThan } from '../server/json-nesting.js';

/**
 * The top-level fields of a model request body where provider-side tools and connectors are named
 * (`provider-side-tools.ts`); everything else (the conversation, which is nearly all of the bytes)
 * is of no interest to the proxy's check.
 */
const TOOL_FIELDS = ['tools', 'mcp_servers', 'container', 'web_search_options'] as const;

/**
 * Above this, the body is parsed on a worker thread (SEC-10): V8 parses a 60 MB conversation in about
 * 0.75 s, which would hold every other request of the server; below it a parse takes a few
 * milliseconds and a worker's start-up would cost more than it saves.
 */
export const OFF_LOOP_PARSE_BYTES = 1024 * 1024;

/** How long a worker may take over one body before it is stopped and the request refused. */
const OFF_LOOP_PARSE_TIMEOUT_MS = 10_000;

/** The worker: parses the bytes it is given and hands back only the tool fields (a small object). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fields = ${JSON.stringify(TOOL_FIELDS)};
try {
  const parsed = JSON.parse(Buffer.from(workerData.buffer, workerData.byteOffset, workerData.byteLength).toString('utf8'));
  const picked = {};
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) for (const name of fields) if (name in parsed) picked[name] = parsed[name];
  parentPort.postMessage({ ok: true, fields: picked });
} catch (error) {
  parentPort.postMessage({ ok: false, problem: String(error && error.message || error).slice(0, 200) });
}
`;

export type ToolFieldsRead = { ok: true; fields: Record<string, unknown> } | { ok: false; problem: string };

function pick(parsed: unknown): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return picked;
  for (const name of TOOL_FIELDS) if (name in parsed) picked[name] = (parsed as Record<string, unknown>)[name];
  return picked;
}

/**
 * Reads the tool fields of a model request body (SEC-8), refusing what is not JSON. A small body
 * is checked against the server's JSON nesting cap first (one linear pass: V8 slows sharply on deep
 * nesting) and parsed here; a large one is parsed off the event loop, within a time bound.
 */
export async function readModelRequestToolFields(body: Buffer): Promise<ToolFieldsRead> {
  if (body.length <= OFF_LOOP_PARSE_BYTES) {
    const text = body.toString('utf8');
    if (nestsDeeperThan(text)) return { ok: false, problem: 'nests arrays and objects deeper than the server accepts' };
    try {
      return { ok: true, fields: pick(JSON.parse(text)) };
    } catch (error) {
      return { ok: false, problem: error instanceof Error ? error.message.slice(0, 200) : 'unreadable' };
    }
  }
  // A large body is read whole on the worker, deep nesting included: slow there costs no one else,
  // and a parse that outlasts the bound is stopped and refused.
  return new Promise<ToolFieldsRead>((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: body });
    const timer = setTimeout(() => {
      resolve({ ok: false, problem: `could not be parsed within ${OFF_LOOP_PARSE_TIMEOUT_MS / 1000} s` });
      void worker.terminate();
    }, OFF_LOOP_PARSE_TIMEOUT_MS);
    worker.once('message', (message: ToolFieldsRead) => {
      clearTimeout(timer);
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, problem: `could not be parsed: ${error.message.slice(0, 200)}` });
    });
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve({ ok: false, problem: 'could not be parsed (the parser stopped)' });
    });
  });
}
