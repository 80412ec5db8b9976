/**
 * SEC-10 for skill sources: a skill folder is read from git into memory to be scanned (SKL-3), so a
 * source whose folder inflates past the size cap, or holds too many entries, is refused by name
 * (400, field `path`) before it is archived or read, and nothing is written. git stores a run of
 * identical bytes about a thousandfold smaller, which is what makes a small repository a bomb.
 */
import { execFileSync } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKILL_FOLDER_LIMITS, readTarEntries } from '../../src/core/skills/tar-entries.js';
import { makeSkillSource, skillMd, type FixtureFile } from '../support/skill-source-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ws: { id: string; dataDir: string };
let source: Awaited<ReturnType<typeof makeSkillSource>>;
let sourceId: string;

beforeAll(async () => {
  const files: Record<string, FixtureFile | string> = {
    'bombs/big-folder/SKILL.md': skillMd('big-folder'),
    // Twice the cap of one repeated letter: a few hundred KiB in git's object store.
    'bombs/big-folder/data.txt': 'a'.repeat(2 * SKILL_FOLDER_LIMITS.maxBytes),
    'bombs/many-entries/SKILL.md': skillMd('many-entries'),
    'bombs/big-skill-md/SKILL.md': skillMd('big-skill-md', 'Large.', `${'b'.repeat(1024 * 1024)}\n`),
    'skills/fine/SKILL.md': skillMd('fine'),
  };
  for (let index = 0; index <= SKILL_FOLDER_LIMITS.maxEntries; index++) files[`bombs/many-entries/notes/${index}.md`] = `note ${index}\n`;
  source = await makeSkillSource(files);
  server = await startTestServer();
  ws = await createSeededWorkspace(server, 'Skill bombs');
  const created = await server.api('POST', `/api/workspaces/${ws.id}/skills/sources`, { url: source.dir });
  expect(created.status).toBe(201);
  sourceId = created.body.id;
}, 180_000);

afterAll(async () => {
  await server?.dispose();
  if (source) await rm(source.dir, { recursive: true, force: true });
});

async function installedFolders(): Promise<string[]> {
  return readdir(join(ws.dataDir, 'skills')).catch(() => []);
}

describe('skill archive bombs (SEC-10)', () => {
  it('a folder that inflates past the size cap is refused with 400 naming path and the limit; nothing is written', async () => {
    const before = await installedFolders();
    const response = await server.api('POST', `/api/workspaces/${ws.id}/skills/install`, { sourceId, path: 'bombs/big-folder' });
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('path');
    expect(response.body.error.message).toContain(`more than the ${SKILL_FOLDER_LIMITS.maxBytes}`);
    expect(await installedFolders()).toEqual(before);
  }, 60_000);

  it('a folder with more entries than the cap is refused with 400 naming path and the limit; nothing is written', async () => {
    const before = await installedFolders();
    const response = await server.api('POST', `/api/workspaces/${ws.id}/skills/install`, { sourceId, path: 'bombs/many-entries' });
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('path');
    expect(response.body.error.message).toContain(`more than ${SKILL_FOLDER_LIMITS.maxEntries} entries`);
    expect(await installedFolders()).toEqual(before);
  }, 60_000);

  it('listing a source does not read a SKILL.md past its cap: that skill is listed as invalid, saying why', async () => {
    const listing = await server.api('GET', `/api/workspaces/${ws.id}/skills/sources/${sourceId}/skills`);
    expect(listing.status).toBe(200);
    const skills = listing.body.skills as Array<{ skillPath: string; valid: boolean; problem: string | null }>;
    expect(skills.find((skill) => skill.skillPath === 'bombs/big-skill-md')).toMatchObject({ valid: false });
    expect(skills.find((skill) => skill.skillPath === 'bombs/big-skill-md')!.problem).toMatch(/more than the \d+ a SKILL\.md may have/);
    expect(skills.find((skill) => skill.skillPath === 'skills/fine')).toMatchObject({ valid: true });
  });

  it('a folder within the caps still installs', async () => {
    const response = await server.api('POST', `/api/workspaces/${ws.id}/skills/install`, { sourceId, path: 'skills/fine' });
    expect(response.status).toBe(201);
    expect(response.body.outcome).toBe('installed');
  });

  it('the archive reader itself stops at the caps it is given (a second check behind the tree listing)', () => {
    const archive = execFileSync('git', ['archive', '--format=tar', 'HEAD:bombs/big-folder'], { cwd: source.dir, maxBuffer: 256 * 1024 * 1024 });
    expect(() => readTarEntries(archive, { maxBytes: 1024, maxEntries: 100 })).toThrow(/more than 1024 bytes/);
    expect(() => readTarEntries(archive, { maxBytes: Number.MAX_SAFE_INTEGER, maxEntries: 1 })).toThrow(/more than 1 entries/);
    expect(readTarEntries(archive, { maxBytes: Number.MAX_SAFE_INTEGER, maxEntries: 2 }).map((entry) => entry.path).sort()).toEqual(['SKILL.md', 'data.txt']);
  });
});
