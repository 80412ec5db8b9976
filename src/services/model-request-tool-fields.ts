import { Worker } from 'node:worker_threads';
import { nestsDeeperThan } from '../server/json-nesting.js';
import { firstDuplicateKey } from './json-duplicate-keys.js';

/**
 * The top-level fields of a model request body where provider-side tools and connectors are named
 * (`provider-side-tools.ts`; `model`, as some models search the web by themselves); everything else
 * (the conversation, which is nearly all of the bytes) is of no interest to the proxy's check.
 */
const TOOL_FIELDS = ['tools', 'mcp_servers', 'container', 'web_search_options', 'search_parameters', 'prompt', 'model'] as const;

/**
 * Above this, the body is parsed on a worker thread (SEC-10): V8 parses a 60 MB conversation in about
 * 0.75 s, which would hold every other request of the server; below it a parse takes a few
 * milliseconds and a worker's start-up would cost more than it saves.
 */
export const OFF_LOOP_PARSE_BYTES = 1024 * 1024;

/** How long a worker may take over one body before it is stopped and the request refused. */
const OFF_LOOP_PARSE_TIMEOUT_MS = 10_000;

/**
 * The worker: parses the bytes it is given and hands back only the tool fields (a small object) or,
 * when given fields to set, the body with them set (re-serialized there, not here).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fields = ${JSON.stringify(TOOL_FIELDS)};
const firstDuplicateKey = ${firstDuplicateKey.toString()};
const duplicateProblem = ${duplicateProblem.toString()};
try {
  const { bytes, replace } = workerData;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const parsed = JSON.parse(text);
  const duplicate = replace ? null : firstDuplicateKey(text);
  if (duplicate !== null) {
    parentPort.postMessage({ ok: false, problem: duplicateProblem(duplicate) });
  } else if (replace) {
    parentPort.postMessage({ ok: true, body: Buffer.from(JSON.stringify({ ...parsed, ...replace })) });
  } else {
    const picked = {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) for (const name of fields) if (name in parsed) picked[name] = parsed[name];
    parentPort.postMessage({ ok: true, fields: picked });
  }
} catch (error) {
  parentPort.postMessage({ ok: false, problem: String(error && error.message || error).slice(0, 200) });
}
`;

/** Why a body naming a key twice is refused: which key, and that its meaning would depend on the parser. */
function duplicateProblem(key: string): string {
  return `names the key ${JSON.stringify(key.slice(0, 100))} twice in one object; which one counts differs between parsers, so the body is refused`;
}

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
      const fields = pick(JSON.parse(text));
      const duplicate = firstDuplicateKey(text);
      return duplicate === null ? { ok: true, fields } : { ok: false, problem: duplicateProblem(duplicate) };
    } catch (error) {
      return { ok: false, problem: error instanceof Error ? error.message.slice(0, 200) : 'unreadable' };
    }
  }
  // A large body is read whole on the worker, deep nesting included: slow there costs no one else,
  // and a parse that outlasts the bound is stopped and refused.
  return onWorker<ToolFieldsRead>(body, undefined);
}

export type RewrittenBody = { ok: true; body: Buffer } | { ok: false; problem: string };

/**
 * The body with top-level fields set to new values (a provider-side tool switched off, SEC-8): parsed
 * and written again, here for a small body (already read once, so known to be JSON within the nesting
 * cap) and on the worker for a large one. Written again, not patched: a key the body names twice
 * comes out once, so what the provider reads is what the proxy decided.
 */
export async function setModelRequestFields(body: Buffer, fields: Record<string, unknown>): Promise<RewrittenBody> {
  if (body.length <= OFF_LOOP_PARSE_BYTES) {
    try {
      return { ok: true, body: Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString('utf8')) as object), ...fields })) };
    } catch (error) {
      return { ok: false, problem: error instanceof Error ? error.message.slice(0, 200) : 'unreadable' };
    }
  }
  return onWorker<RewrittenBody>(body, fields);
}

/** Runs the worker over one body within the time bound; every way it can end resolves once. */
function onWorker<T extends { ok: true } | { ok: false; problem: string }>(bytes: Buffer, replace: Record<string, unknown> | undefined): Promise<T | { ok: false; problem: string }> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bytes, replace } });
    const timer = setTimeout(() => {
      resolve({ ok: false, problem: `could not be parsed within ${OFF_LOOP_PARSE_TIMEOUT_MS / 1000} s` });
      void worker.terminate();
    }, OFF_LOOP_PARSE_TIMEOUT_MS);
    worker.once('message', (message: T & { body?: Uint8Array }) => {
      clearTimeout(timer);
      // A Buffer posted from a worker arrives as a plain Uint8Array.
      resolve(message.body ? ({ ...message, body: Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength) } as T) : message);
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
