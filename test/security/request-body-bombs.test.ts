import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

/**
 * SEC-10: every body the server reads is bounded before and after decompression and never parsed on
 * the event loop, so an attack costs the attacker's run, never the server. The server runs as its own
 * process (`serve`), so its RSS can be read from /proc while an agent's run token is used against it.
 */

const MIB = 1024 * 1024;
const ZERO_ID = '0'.repeat(40);
const SOME_ID = '1'.repeat(40);

let model: ScriptedModelServer;
let serve: ServeProcess;
let scratch: string;
/** What git in the run's sandbox is configured with: the push proxy's URL for `origin`, and the run token. */
let push: { url: string; token: string };
let workspaceId: string;

function pkt(line: string): Buffer {
  return Buffer.from(`${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`);
}

/** `git config` entries from `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` lines of `env` output. */
function gitConfigEntries(envText: string): Array<[string, string]> {
  const values = new Map<string, string>();
  for (const line of envText.split('\n')) {
    const match = /^GIT_CONFIG_(KEY|VALUE)_(\d+)=(.*)$/.exec(line);
    if (match) values.set(`${match[1]}${match[2]}`, match[3]!);
  }
  const entries: Array<[string, string]> = [];
  for (const [name, key] of values) if (name.startsWith('KEY')) entries.push([key, values.get(`VALUE${name.slice(3)}`) ?? '']);
  return entries;
}

async function findFile(root: string, name: string): Promise<string | null> {
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile() && entry.name === name) return join(entry.parentPath, entry.name);
  }
  return null;
}

/** The server's resident set, from /proc (Linux). */
async function serverRssBytes(): Promise<number> {
  const status = await readFile(`/proc/${serve.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A gzip stream of `blocks` copies of `block`, compressed in this process (the server sees only the result). */
async function gzipOf(block: Buffer, blocks: number, prefix = Buffer.alloc(0)): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  gzip.write(prefix);
  for (let index = 0; index < blocks; index++) if (!gzip.write(block)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end();
  await done;
  return Buffer.concat(out);
}

interface PostResult {
  status: number;
  body: string;
  /** Body bytes the client had handed to the socket when the response's status line arrived. */
  sentAtResponse: number;
  sent: number;
}

/**
 * POSTs to the push proxy with node:http (fetch would not show an answer given mid-upload). The body
 * is written chunk by chunk with backpressure; writing stops once the server has answered.
 */
function postPush(headers: Record<string, string>, chunks: Iterable<Buffer>): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered: { status: number; sentAtResponse: number } | null = null;
    const request = httpRequest(`${push.url}/git-receive-pack`, {
      method: 'POST',
      // A connection of its own: Node's pooling agent would hand a connection whose body was cut short to the next request.
      agent: false,
      headers: { authorization: `Bearer ${push.token}`, 'content-type': 'application/x-git-receive-pack-request', ...headers },
    });
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no answer within 60 s (${sent} bytes sent)`));
    }, 60_000);
    request.on('response', (response) => {
      answered = { status: response.statusCode ?? 0, sentAtResponse: sent };
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ ...answered!, body: Buffer.concat(parts).toString('latin1'), sent });
        // Done with this connection, as git is once it has the answer; the unsent rest never goes.
        request.destroy();
      });
    });
    // The server closes the connection after answering early; the unsent rest is expected to fail.
    request.on('error', (error) => {
      if (!answered) {
        clearTimeout(timer);
        reject(error);
      }
    });
    void (async () => {
      for (const chunk of chunks) {
        if (answered || request.destroyed) return;
        sent += chunk.length;
        if (!request.write(chunk)) await new Promise((resolve) => request.once('drain', resolve).once('close', resolve));
      }
      if (!answered && !request.destroyed) request.end();
    })();
  });
}

/** Polls /healthz back to back and samples the server's RSS until `attack` settles. */
async function duringAttack<T>(attack: Promise<T>): Promise<{ result: T; latencies: number[]; failures: number; rssGrowth: number }> {
  const rssBefore = await serverRssBytes();
  let peak = rssBefore;
  let settled = false;
  const latencies: number[] = [];
  let failures = 0;
  const polling = (async () => {
    while (!settled) {
      const started = performance.now();
      const answer = await fetch(`${serve.url}/healthz`).then((response) => response.status, () => 0);
      latencies.push(performance.now() - started);
      if (answer !== 200) failures += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  // Sampled on its own clock: a server stalled in a decompression must not also stall the sampling.
  const sampling = (async () => {
    while (!settled) {
      peak = Math.max(peak, await serverRssBytes());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const result = await attack;
    return { result, latencies, failures, rssGrowth: peak - rssBefore };
  } finally {
    settled = true;
    await Promise.all([polling, sampling]);
  }
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  serve = await startServeProcess({ ...model.providerEnv });
  scratch = await mkdtemp(join(tmpdir(), 'cc-body-bombs-'));
  const { repoPath } = await makeRepoWithRemote(scratch);
  const workspace = await serve.api('POST', '/api/workspaces', { name: 'Bombs' });
  workspaceId = workspace.body.id;
  const space = await serve.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Work', repoPath, autonomy: 'actFreely' });
  expect(space.status).toBe(201);
  const conversation = await serve.api('POST', `/api/workspaces/${workspaceId}/spaces/${space.body.id}/conversations`, { title: 'Main' });
  // The attacker is the agent: its bash records the git configuration the run gave it (the push
  // proxy URL and its run token) and keeps the run alive while the test plays the agent's requests.
  model.script(reply().tool('bash', { command: 'env > cc-push-env.txt; sleep 120', timeoutSeconds: 150 }), reply().text('done'));
  let posted = { status: 0, body: null as unknown };
  for (let attempt = 0; attempt < 100 && posted.status !== 202; attempt++) {
    posted = await serve.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversation.body.id}/messages`, { text: 'attack' });
    if (posted.status !== 202) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(posted.status).toBe(202);
  let envFile: string | null = null;
  for (let attempt = 0; attempt < 300 && !envFile; attempt++) {
    envFile = await findFile(join(serve.dataRoot, 'workspaces'), 'cc-push-env.txt');
    if (!envFile) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(envFile).not.toBeNull();
  const entries = gitConfigEntries(await readFile(envFile!, 'utf8'));
  const insteadOf = entries.find(([key]) => key.endsWith('.pushInsteadOf') || key.endsWith('.pushinsteadof'))!;
  const header = entries.find(([key]) => /^http\..*\.extraheader$/i.test(key))!;
  push = { url: insteadOf[0].replace(/^url\./, '').replace(/\.pushInsteadOf$/i, ''), token: /Bearer (\S+)/.exec(header[1])![1]! };
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  await model?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('request body bombs (SEC-10)', () => {
  it('a gzip of 0.6 MB that inflates to 520 MiB sent to the push proxy is refused with 413 while /healthz keeps answering and RSS stays flat', async () => {
    // Ref updates with no flush packet: a "command section" that never ends. Each line is the longest
    // pkt-line (65520 bytes) with a ref name of repeated letters, which gzip shrinks about a thousandfold.
    const prefix = `${ZERO_ID} ${SOME_ID} refs/heads/`;
    const line = pkt(`${prefix}${'a'.repeat(65_520 - 4 - prefix.length - 1)}\n`);
    const block = Buffer.concat(Array.from({ length: 16 }, () => line));
    const bomb = await gzipOf(block, Math.ceil((520 * MIB) / block.length));
    expect(bomb.length).toBeLessThan(MIB);
    const { result, latencies, failures, rssGrowth } = await duringAttack(postPush({ 'content-encoding': 'gzip', 'content-length': String(bomb.length) }, [bomb]));
    console.log(`SEC-10 gzip bomb (${bomb.length} bytes → 520 MiB): /healthz p99 ${p99(latencies).toFixed(1)} ms over ${latencies.length} polls, server RSS growth ${(rssGrowth / MIB).toFixed(1)} MiB`);
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body).error).toMatchObject({ code: 'payload_too_large', field: 'commandSectionBytes' });
    expect(latencies.length).toBeGreaterThan(0);
    expect(failures).toBe(0);
    expect(rssGrowth).toBeLessThan(200 * MIB);
  }, 120_000);

  it('a push the gitPush rules deny is answered before its body is read', async () => {
    const rule = await serve.api('POST', `/api/workspaces/${workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'git push origin main' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    const commands = Buffer.concat([pkt(`${ZERO_ID} ${SOME_ID} refs/heads/main\0report-status side-band-64k\n`), Buffer.from('0000')]);
    const filler = Buffer.alloc(MIB, 0x50);
    const total = 256;
    const { result, rssGrowth } = await duringAttack(postPush({}, (function* () {
      yield commands;
      for (let index = 0; index < total; index++) yield filler;
    })()));
    console.log(`SEC-10 denied push: answered after ${(result.sentAtResponse / MIB).toFixed(1)} of ${total} MiB sent, server RSS growth ${(rssGrowth / MIB).toFixed(1)} MiB`);
    expect(result.status).toBe(200);
    expect(result.body).toMatch(/push refused \(decided by workspace rule/);
    expect(result.body).toContain('ng refs/heads/main');
    // The denial came while most of the body was still unsent: the server did not wait for it.
    expect(result.sentAtResponse).toBeLessThan((total / 2) * MIB);
  }, 120_000);

  it('a declared Content-Length over the push cap is refused before a byte of the body is read', async () => {
    const result = await postPush({ 'content-length': String(2 * 1024 * MIB - 1) }, [Buffer.from('0000')]);
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body).error).toMatchObject({ code: 'payload_too_large', field: 'compressedBytes' });
  });

  it('a body in an encoding the push proxy does not decode is refused with 415 naming content-encoding', async () => {
    const result = await postPush({ 'content-encoding': 'zstd' }, [Buffer.from('0000')]);
    expect(result.status).toBe(415);
    expect(JSON.parse(result.body).error).toMatchObject({ field: 'content-encoding' });
  });

  it('a JSON body nested thousands of levels deep is refused before JSON.parse, while /healthz keeps answering', async () => {
    const depth = 2 * MIB;
    const body = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const attack = fetch(`${serve.url}/api/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' }, body });
    const { result, latencies, failures } = await duringAttack(attack.then(async (response) => ({ status: response.status, body: (await response.json()) as { error: { field: string; message: string } } })));
    console.log(`SEC-10 nested JSON (${(body.length / MIB).toFixed(0)} MiB): /healthz p99 ${p99(latencies).toFixed(1)} ms over ${latencies.length} polls`);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ field: 'body' });
    expect(result.body.error.message).toMatch(/nests arrays and objects deeper than \d+ levels/);
    expect(failures).toBe(0);
  });

  it('a compressed body sent to a JSON route is refused with 415, never inflated', async () => {
    const bomb = await gzipOf(Buffer.alloc(MIB, 0x20), 64, Buffer.from('{"name":"'));
    const response = await fetch(`${serve.url}/api/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({ field: 'content-encoding' });
  });
});
