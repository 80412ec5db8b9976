import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { checkResponseContract } from './response-contract.js';
import { startServer, type RunningServer, type StartServerOptions } from '../../src/server/start-server.js';
import { databaseNameFor, dropTestDatabase, ensureTestDatabase, testDialect } from './test-database.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
}

/** A real server on 127.0.0.1:0 over a fresh temp data root, with a small authenticated client. */
export interface TestServer {
  running: RunningServer;
  dataRoot: string;
  url: string;
  token: string;
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  /** Stops the server, keeping the data root (for restart tests). */
  stop(): Promise<void>;
  /** Stops the server and deletes the data root. */
  dispose(): Promise<void>;
}

export async function makeDataRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'cc-test-'));
}

export async function startTestServer(options: Partial<StartServerOptions> & { dataRoot?: string } = {}): Promise<TestServer> {
  const dataRoot = options.dataRoot ?? (await makeDataRoot());
  // CC_TEST_DATABASE=postgres: the same server on PostgreSQL, one database per data root.
  const onPostgres = testDialect() === 'postgres' && options.database === undefined;
  const database = onPostgres ? await ensureTestDatabase(databaseNameFor(dataRoot)) : options.database;
  const running = await startServer({ port: 0, logLevel: 'silent', ...options, dataRoot, ...(database ? { database } : {}) });
  const token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : null;
    // Every answer must match the schema its route declares (src/schemas/*): drift fails the test here.
    checkResponseContract(running.server, method, path, response.status, parsed);
    return { status: response.status, body: parsed };
  };
  return {
    running,
    dataRoot,
    url: running.url,
    token,
    api,
    stop: () => running.close(),
    async dispose() {
      await running.close();
      await rm(dataRoot, { recursive: true, force: true });
      if (onPostgres) await dropTestDatabase(databaseNameFor(dataRoot));
    },
  };
}

/** Creates a workspace and waits until its background seeding has finished. */
export async function createSeededWorkspace(server: TestServer, name = 'Acme'): Promise<{ id: string; dataDir: string }> {
  const created = await server.api('POST', '/api/workspaces', { name });
  if (created.status !== 201) throw new Error(`workspace create failed: ${JSON.stringify(created.body)}`);
  await server.running.app.seeding.settle();
  return created.body;
}
