/**
 * SKL-4/5, SEC-4: a repository's skill folders live in the agent's checkout, so the agent can plant
 * links in them. Links are never followed on the way to a repo skill: a skills folder or a skill
 * folder that is a link is not read (the latter is listed as refused), and a `repos` folder the agent
 * replaced with a link is never checked out through.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSkillSource, skillMd } from '../support/skill-source-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ws: { id: string; dataDir: string };
let repo: Awaited<ReturnType<typeof makeSkillSource>>;
let outside: string;
const SECRET_BODY = 'TOP-SECRET-OUTSIDE-BODY';

beforeAll(async () => {
  repo = await makeSkillSource({ 'README.md': '# r\n', '.claude/skills/good-one/SKILL.md': skillMd('good-one') });
  outside = await mkdtemp(join(tmpdir(), 'cc-outside-'));
  await mkdir(join(outside, 'sneaky'), { recursive: true });
  await writeFile(join(outside, 'sneaky', 'SKILL.md'), skillMd('sneaky', 'Looks fine.', `${SECRET_BODY}\n`));
  server = await startTestServer();
  ws = await createSeededWorkspace(server, 'Repo skill links');
}, 120_000);

afterAll(async () => {
  await server?.dispose();
  await rm(repo.dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function conversationIn(space: Record<string, unknown>): Promise<{ spaceId: string; conversationId: string }> {
  const created = await server.api('POST', `/api/workspaces/${ws.id}/spaces`, space);
  const conversation = await server.api('POST', `/api/workspaces/${ws.id}/spaces/${created.body.id}/conversations`, { title: 'c' });
  return { spaceId: created.body.id, conversationId: conversation.body.id };
}

describe('links planted in a checkout never lead a repo skill out (SKL-4, SEC-4)', () => {
  it('a skills folder or a skill folder that is a link is not read', async () => {
    const { conversationId } = await conversationIn({ name: 'Own repo', repoPath: repo.dir });
    const url = `/api/workspaces/${ws.id}/conversations/${conversationId}/repo-skills`;
    expect((await server.api('GET', url)).status).toBe(200);
    const checkout = join(ws.dataDir, 'worktrees', conversationId);
    // The agent's moves: the workspace's own skills folder as `.agents/skills`, an outside folder as a skill.
    await mkdir(join(checkout, '.agents'), { recursive: true });
    await symlink(join(ws.dataDir, 'skills'), join(checkout, '.agents', 'skills'));
    await mkdir(join(checkout, '.opencode', 'skills'), { recursive: true });
    await symlink(join(outside, 'sneaky'), join(checkout, '.opencode', 'skills', 'sneaky'));
    const view = await server.api('GET', url);
    const own = view.body.repositories[0];
    expect(own.skills.map((skill: { name: string }) => skill.name)).toEqual(['good-one']);
    expect(own.refused).toEqual([expect.objectContaining({ folder: '.opencode/skills/sneaky', reason: expect.stringMatching(/symbolic link/) })]);
    expect(JSON.stringify(view.body)).not.toContain(SECRET_BODY);
    const loaded = await server.api('POST', `/api/workspaces/${ws.id}/conversations/${conversationId}/messages`, { text: `/skill:${own.name}:sneaky go` });
    expect(loaded.status).toBe(400);
    expect(JSON.stringify(loaded.body)).not.toContain(SECRET_BODY);
  });

  it('a repos folder replaced by a link is never checked out through', async () => {
    const { spaceId, conversationId } = await conversationIn({ name: 'Linked' });
    expect((await server.api('POST', `/api/workspaces/${ws.id}/spaces/${spaceId}/repositories`, { name: 'lib', repoPath: repo.dir })).status).toBe(201);
    const checkout = join(ws.dataDir, 'worktrees', conversationId);
    const target = await mkdtemp(join(tmpdir(), 'cc-repos-target-'));
    try {
      await mkdir(checkout, { recursive: true });
      await symlink(target, join(checkout, 'repos'));
      const view = await server.api('GET', `/api/workspaces/${ws.id}/conversations/${conversationId}/repo-skills`);
      expect(view.status).toBe(200);
      expect(await readdir(target)).toEqual([]);
      expect(existsSync(join(target, 'lib'))).toBe(false);
      expect(view.body.repositories[0].skills).toEqual([]);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });
});
