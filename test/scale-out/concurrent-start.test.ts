import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * NF-SCALE: every start-up step that writes shared state (migrations, the first operator token, the
 * default workspace) must hold when several processes start at the same moment on a fresh
 * database. Seen before: of two API processes started together, one exited with "a workspace named
 * 'Default' already exists". Six real `serve --role api` processes share one data root (as a
 * deployment's API processes do) and one new PostgreSQL database.
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const PROCESSES = 6;

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let root = '';
const children: ChildProcess[] = [];

/** Starts `serve` and resolves with its URL once it listens, or with its exit code and output if it exits first. */
function startApi(): Promise<{ url: string | null; output: string }> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--role', 'api', '--port', '0', '--data-dir', root], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CONTROL_CENTER_DATABASE_URL: database.url },
  });
  children.push(child);
  return new Promise((resolve) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (listening && output.includes('curl')) resolve({ url: listening[1]!, output });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => resolve({ url: null, output: `${output}\n(exited with ${code})` }));
  });
}

beforeAll(async () => {
  if (!enabled) return;
  database = await freshTestDatabase();
  root = await makeDataRoot();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)));
  if (root) await rm(root, { recursive: true, force: true });
  if (enabled) await database.drop();
});

describe.skipIf(!enabled)('scale-out: API processes started at the same moment on a fresh database', () => {
  it(`${PROCESSES} processes all start, share one operator token and one default workspace`, async () => {
    const started = await Promise.all(Array.from({ length: PROCESSES }, () => startApi()));
    for (const process of started) expect(process.url, process.output.slice(-3000)).not.toBeNull();

    // The token in the shared file is accepted by every process, and each lists the same single workspace.
    const token = (await readFile(join(root, 'operator-token'), 'utf8')).trim();
    const listed = await Promise.all(
      started.map(async ({ url }) => {
        const response = await fetch(`${url}/api/workspaces`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: ((await response.json()) as { workspaces: Array<{ id: string; name: string }> }).workspaces };
      }),
    );
    for (const answer of listed) {
      expect(answer.status).toBe(200);
      expect(answer.body.map((workspace) => workspace.name)).toEqual(['Default']);
    }
    expect(new Set(listed.map((answer) => answer.body[0]!.id)).size).toBe(1);
  }, 300_000);
});
