/**
 * SKL-3 / SEC-2: skill-source URLs are hostile even from an operator's paste. Remote-helper syntax,
 * option-shaped values, file:// URLs where they are not allowed (another host, the server's own data
 * folder, directly or through a link) and URLs carrying credentials are refused with a 400 naming
 * `url`; nothing is stored, and no refusal repeats the secret.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSkillSource, skillMd } from '../support/skill-source-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ws: { id: string; dataDir: string };
let source: Awaited<ReturnType<typeof makeSkillSource>>;
let scratch: string;

beforeAll(async () => {
  source = await makeSkillSource({ 'skills/ok-skill/SKILL.md': skillMd('ok-skill') });
  server = await startTestServer();
  ws = await createSeededWorkspace(server, 'Hostile URLs');
  scratch = await mkdtemp(join(tmpdir(), 'cc-skill-url-'));
}, 120_000);

afterAll(async () => {
  await server?.dispose();
  await rm(source.dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

async function refused(url: string, secret?: string): Promise<string> {
  const response = await server.api('POST', `/api/workspaces/${ws.id}/skills/sources`, { url });
  expect(response.status, url).toBe(400);
  expect(response.body.error.field, url).toBe('url');
  const text = JSON.stringify(response.body);
  if (secret) expect(text, url).not.toContain(secret);
  return response.body.error.message as string;
}

describe('hostile skill-source URLs (SKL-3, SEC-2)', () => {
  it('refuses remote-helper syntax and option-shaped values', async () => {
    expect(await refused(`ext::sh -c touch% ${join(scratch, 'pwned')}`)).toMatch(/remote-helper/);
    expect(await refused('fd::17')).toMatch(/remote-helper/);
    expect(await refused('-uhelp')).toMatch(/starts with "-"/);
    expect(await refused('--upload-pack=touch /tmp/x')).toMatch(/starts with "-"/);
    expect(await refused('ssh://-oProxyCommand=touch%20x/repo')).toMatch(/option/);
    expect(await refused('-oProxyCommand=x:repo')).toMatch(/starts with "-"/);
    expect(await refused('weird+scheme://host/repo')).toMatch(/not one of/);
  });

  it('refuses URLs that carry credentials without echoing them', async () => {
    await refused('https://alice:s3cr3t-pass@example.com/skills.git', 's3cr3t-pass');
    await refused('https://ghp_TOKENabc123456@github.com/o/skills.git', 'ghp_TOKENabc123456');
    await refused('ssh://bob:hunter2-ssh@example.com/skills.git', 'hunter2-ssh');
    await refused('git://tok-999@example.com/skills.git', 'tok-999');
  });

  it('refuses file:// where it is not allowed: another host, the data folder, a link into it', async () => {
    expect(await refused('file://other-host/srv/skills.git')).toMatch(/this machine/);
    expect(await refused(`file://${server.dataRoot}`)).toMatch(/data folder/);
    expect(await refused(join(ws.dataDir, 'skills'))).toMatch(/data folder/);
    expect(await refused(`file://${encodeURI(join(ws.dataDir, 'worktrees'))}`)).toMatch(/data folder/);
    const link = join(scratch, 'innocent');
    await symlink(server.dataRoot, link);
    expect(await refused(link)).toMatch(/data folder/);
    expect(await refused('file://relative/path')).toMatch(/this machine|absolute/);
    expect((await server.api('GET', `/api/workspaces/${ws.id}/skills/sources`)).body.sources).toEqual([]);
  });

  it('still accepts a local path and a file:// URL outside the data folder', async () => {
    const url = `file://${source.dir}`;
    const created = await server.api('POST', `/api/workspaces/${ws.id}/skills/sources`, { url });
    expect(created.status).toBe(201);
    expect(created.body.sourceType).toBe('local');
  });

  it('refuses an option-shaped ref before git sees it', async () => {
    const sources = (await server.api('GET', `/api/workspaces/${ws.id}/skills/sources`)).body.sources;
    const browse = await server.api('GET', `/api/workspaces/${ws.id}/skills/sources/${sources[0].id}/skills?ref=${encodeURIComponent('--upload-pack=touch /tmp/x')}`);
    expect(browse.status).toBe(400);
    expect(browse.body.error.field).toBe('ref');
  });
});
