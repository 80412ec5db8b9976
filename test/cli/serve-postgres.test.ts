import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceSchemaName } from '../../src/store/workspace-database.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let database: Awaited<ReturnType<typeof freshTestDatabase>>;
let dataRoot: string;
let serverProcess: ChildProcess | null = null;

beforeAll(async () => {
  database = await freshTestDatabase();
  dataRoot = await makeDataRoot();
});
afterAll(async () => {
  if (serverProcess && serverProcess.exitCode === null) {
    const exited = new Promise((resolve) => serverProcess!.once('exit', resolve));
    serverProcess.kill('SIGTERM');
    await exited;
  }
  await rm(dataRoot, { recursive: true, force: true });
  await database.drop();
});

describe('control-center serve on PostgreSQL (WS-3)', () => {
  it('CONTROL_CENTER_DATABASE_URL puts the registry and each workspace in the database, a schema per workspace', async () => {
    const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataRoot, '--no-default-workspace'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CONTROL_CENTER_DATABASE_URL: database.url },
    });
    serverProcess = child;
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('curl')) resolve(text);
      });
      child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${text}`)));
    });
    expect(output).toMatch(/Database: postgres:\/\/control_center@.* \(PostgreSQL, a schema per workspace\)/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;
    const token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
    const created = await fetch(`${url}/api/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'On Postgres' }),
    });
    expect(created.status).toBe(201);
    const workspace = (await created.json()) as { id: string };

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const registry = await client.query('select id, name from cc_registry.workspaces');
      expect(registry.rows).toEqual([{ id: workspace.id, name: 'On Postgres' }]);
      const owner = await client.query(`select value from "${workspaceSchemaName(workspace.id)}".workspace_meta where key = 'workspace_id'`);
      expect(owner.rows).toEqual([{ value: workspace.id }]);
    } finally {
      await client.end();
    }
  });

  it('refuses a --database that is not a postgres:// URL, naming the option, before opening anything', async () => {
    const failure = await run(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', join(dataRoot, 'never'), '--database', 'mysql://user:secret@db/x']).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect((failure as { code: number }).code).not.toBe(0);
    expect((failure as { stderr: string }).stderr).toContain("--database must be a postgres:// URL");
    expect((failure as { stderr: string }).stderr).not.toContain('secret');
  });
});
