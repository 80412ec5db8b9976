import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { makeDataRoot, startTestServer, type TestServer } from '../support/test-server.js';
import { testDialect } from '../support/test-database.js';

/**
 * Operations (NF-SCALE): `control-center backup` copies the embedded store of a server that keeps
 * writing, and `restore` makes a data root a server starts on with the same data — in another place
 * than the original, too. A half-written backup, a non-empty target and a PostgreSQL deployment are
 * refused by name.
 */
describe.skipIf(testDialect() === 'postgres')('backup and restore of the embedded data root', () => {
  let server: TestServer;
  let restored: TestServer | null = null;
  const scratch: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await restored?.dispose();
    await server.dispose();
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  it('copies a running, writing server; the restored data root serves the same workspaces, agents and token', async () => {
    const workspace = (await server.api('POST', '/api/workspaces', { name: 'Backed up' })).body as { id: string };
    const before = await server.api('POST', `/api/workspaces/${workspace.id}/agents`, { name: 'before-backup' });
    expect(before.status, JSON.stringify(before.body)).toBe(201);

    // Writes keep landing while the backup runs: each database's copy must still be consistent.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const answer = await server.api('POST', `/api/workspaces/${workspace.id}/agents`, { name: `during-${written}` });
        if (answer.status === 201) written += 1;
      }
    })();
    const scratchRoot = await makeDataRoot();
    scratch.push(scratchRoot);
    const backupDir = join(scratchRoot, 'backup');
    const backup = await runCli(server.dataRoot, 'backup', backupDir);
    writing = false;
    await writer;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/backed up into .*: \d+ database\(s\)/);
    expect(written).toBeGreaterThan(0);
    // The copy holds the operator token and secrets: private like the data root.
    expect((await stat(backupDir)).mode & 0o077).toBe(0);
    const manifest = JSON.parse(await readFile(join(backupDir, 'control-center-backup.json'), 'utf8'));
    expect(manifest.databases).toEqual(expect.arrayContaining(['registry.sqlite', join('workspaces', workspace.id, 'workspace.sqlite')]));

    // Into a non-empty directory: refused, nothing written there.
    const occupied = join(scratchRoot, 'occupied');
    await mkdir(occupied);
    await writeFile(join(occupied, 'keep.txt'), 'mine');
    const refusedBackup = await runCli(server.dataRoot, 'backup', occupied);
    expect(refusedBackup.code).not.toBe(0);
    expect(refusedBackup.stderr).toContain('is not empty');
    expect(await readFile(join(occupied, 'keep.txt'), 'utf8')).toBe('mine');

    // Restore into a data root that is in use: refused. Into a new place: done.
    const refusedRestore = await runCli(occupied, 'restore', backupDir);
    expect(refusedRestore.code).not.toBe(0);
    expect(refusedRestore.stderr).toContain('is not empty');
    const newRoot = join(scratchRoot, 'restored-root');
    const restore = await runCli(newRoot, 'restore', backupDir);
    expect(restore.code, restore.stderr).toBe(0);

    restored = await startTestServer({ dataRoot: newRoot });
    expect(restored.token).toBe(server.token);
    const workspaces = (await restored.api('GET', '/api/workspaces')).body.workspaces as Array<{ id: string; name: string; dataDir: string }>;
    const copy = workspaces.find((candidate) => candidate.id === workspace.id)!;
    expect(copy.name).toBe('Backed up');
    // Restored elsewhere, the workspace's folder is the new data root's, not the original's.
    expect(copy.dataDir.startsWith(newRoot)).toBe(true);
    const agents = (await restored.api('GET', `/api/workspaces/${workspace.id}/agents`)).body.agents as Array<{ name: string }>;
    const names = agents.map((agent) => agent.name);
    expect(names).toContain('before-backup');
    // The agents written during the backup are either in the copy or not, never half there.
    expect(names.filter((name) => name.startsWith('during-')).length).toBeLessThanOrEqual(written);
  }, 300_000);

  it('refuses a directory that is not a complete backup, and a PostgreSQL deployment', async () => {
    const scratchRoot = await makeDataRoot();
    scratch.push(scratchRoot);
    const notABackup = join(scratchRoot, 'half');
    await mkdir(notABackup);
    await writeFile(join(notABackup, 'registry.sqlite'), '');
    const refused = await runCli(join(scratchRoot, 'target'), 'restore', notABackup);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is not a complete backup');
    await expect(stat(join(scratchRoot, 'target'))).rejects.toThrow();

    const onPostgres = await runCli(server.dataRoot, 'backup', join(scratchRoot, 'pg'), '--database', 'postgres://cc@localhost/cc');
    expect(onPostgres.code).not.toBe(0);
    expect(onPostgres.stderr).toContain('pg_dump');
  }, 180_000);
});
