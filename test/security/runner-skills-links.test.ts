/**
 * SKL-5, hostile checkout: the repository (agent-controlled content) holds `.claude/skills` and
 * `.agents/skills` as links to a folder of its own skills. The scanner reads no link, and the real
 * Claude Agent SDK engine, fed only the server-written plugin, lists none of them (the positive
 * case is test/adapters/claude-agent-sdk-skills.test.ts). The scripted model is the only stand-in.
 */
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { questionCards } from '../support/relay-fixture.js';
import { makeSkillSource, skillMd } from '../support/skill-source-fixture.js';

let fixture: ClaudeCodeFixture | null = null;
let repo: Awaited<ReturnType<typeof makeSkillSource>> | null = null;

afterAll(async () => {
  await fixture?.dispose();
  if (repo) await rm(repo.dir, { recursive: true, force: true });
});

describe('skills folders that are links in the checkout (SKL-5)', () => {
  it('neither the scan nor the SDK engine follows .claude/skills or .agents/skills links to the repository’s own skills', async () => {
    repo = await makeSkillSource({
      'README.md': '# decoy\n',
      'decoy/decoy-skill/SKILL.md': skillMd('decoy-skill', 'A skill smuggled through a link (fixture marker QX-55).'),
      '.claude/skills': { link: '../decoy' },
      '.agents/skills': { link: '../decoy' },
    });
    fixture = await startClaudeCodeFixture({
      adapter: {
        id: 'claude-agent-sdk',
        transport: (app, dataRoot) => new ClaudeAgentSdkTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, askUser: questionCards(app) }),
      },
    });
    const f = fixture;
    const space = await f.api('POST', `/api/workspaces/${f.workspaceId}/spaces`, { name: 'Decoy', repoPath: repo.dir, defaultAgentId: f.agentId });
    expect(space.status).toBe(201);
    const conversation = await f.api('POST', `/api/workspaces/${f.workspaceId}/spaces/${space.body.id}/conversations`, { title: 'Decoy' });
    const view = await f.api('GET', `/api/workspaces/${f.workspaceId}/conversations/${conversation.body.id}/repo-skills`);
    expect(view.status).toBe(200);
    expect(view.body.repositories.flatMap((entry: { skills: unknown[] }) => entry.skills)).toEqual([]);

    f.model.script(reply().text('noted'));
    const before = f.model.requests.length;
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${conversation.body.id}/messages`, { text: 'hello', agentId: f.agentId });
    expect(posted.status).toBe(202);
    const detail = await f.waitForRun(posted.body.run.id, 120_000);
    expect(detail.run.state).toBe('completed');
    const sent = JSON.stringify(f.model.requests.slice(before).filter((request) => request.path.startsWith('/v1/messages')).map((request) => (request as any).body));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).not.toContain('QX-55');
    expect(sent).not.toContain('decoy-skill');
  }, 240_000);
});
