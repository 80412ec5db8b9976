import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freshTestDatabase } from '../support/test-database.js';
import { createSeededWorkspace, makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * NF-SCALE, backup on PostgreSQL: docs/scale-out.md tells operators to back up with
 * `pg_dump --format=custom` and restore with `pg_restore` into an empty database. This checks that
 * promise end to end: rows written through a real server, dumped, restored into a new database, and
 * a new server on the restored database serving them back through the API (same operator token,
 * since the data root's `operator-token` is copied as the docs say).
 * Needs a PostgreSQL server: runs under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres.
 */
const enabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';
const run = promisify(execFile);

/** Debian's newest PostgreSQL client binaries (the same version as the test server). */
function postgresBinary(name: 'pg_dump' | 'pg_restore'): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
  return join('/usr/lib/postgresql', versions.at(-1)!, 'bin', name);
}

const databases: Array<{ drop: () => Promise<void> }> = [];
const servers: TestServer[] = [];
let dumpDir = '';
afterAll(async () => {
  for (const server of servers) await server.dispose().catch(() => undefined);
  for (const database of databases) await database.drop();
  if (dumpDir) await rm(dumpDir, { recursive: true, force: true });
});

describe.skipIf(!enabled)('scale-out: a PostgreSQL database restored from pg_dump serves', () => {
  it('rows written through a server come back through a server on the restored database', async () => {
    const original = await freshTestDatabase();
    databases.push(original);
    const dataRoot = await makeDataRoot();
    const first = await startTestServer({ dataRoot, database: original.url });
    servers.push(first);
    const workspace = await createSeededWorkspace(first, 'Restored');
    const agent = await first.api('POST', `/api/workspaces/${workspace.id}/agents`, { name: 'survivor', skills: ['testing'], silenceTimeoutMinutes: 7 });
    expect(agent.status).toBe(201);
    const agentsBefore = (await first.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents.map((item: any) => item.id).sort();
    await first.stop();

    dumpDir = await mkdtemp(join(tmpdir(), 'cc-pg-dump-'));
    const dumpFile = join(dumpDir, 'control-center.dump');
    await run(postgresBinary('pg_dump'), ['--format=custom', `--file=${dumpFile}`, `--dbname=${original.url}`]);
    const restored = await freshTestDatabase();
    databases.push(restored);
    // --no-owner: the restoring role owns what it creates, as on a new host with other roles.
    await run(postgresBinary('pg_restore'), ['--no-owner', '--exit-on-error', `--dbname=${restored.url}`, dumpFile]);

    const second = await startTestServer({ dataRoot, database: restored.url });
    servers.push(second);
    expect(second.running.tokenCreated).toBe(false);
    const workspaces = await second.api('GET', '/api/workspaces');
    expect(workspaces.status).toBe(200);
    expect(workspaces.body.workspaces.map((item: any) => [item.id, item.name])).toEqual([[workspace.id, 'Restored']]);
    const read = await second.api('GET', `/api/workspaces/${workspace.id}/agents/${agent.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: 'survivor', skills: ['testing'], silenceTimeoutMinutes: 7 });
    const agentsAfter = (await second.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents.map((item: any) => item.id).sort();
    expect(agentsAfter).toEqual(agentsBefore);
    // The restored database takes new writes too (migrations recorded, sequences and constraints intact).
    const created = await second.api('POST', `/api/workspaces/${workspace.id}/agents`, { name: 'newcomer' });
    expect(created.status).toBe(201);
    const duplicate = await second.api('POST', `/api/workspaces/${workspace.id}/agents`, { name: 'survivor' });
    expect(duplicate.status).toBe(409);
  }, 180_000);
});
