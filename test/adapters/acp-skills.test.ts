/**
 * SKL-5 with a real ACP agent (`@zed-industries/claude-agent-acp`, offline against the scripted
 * model): ACP's `session/new` has no skills option, so the prepare stage writes the scanned set into
 * the checkout's `.agents/skills/` and `.claude/skills/`, and the agent's own skill discovery offers
 * it to the model. The installed skill and the active repository's scanned repo skill (shipped in the
 * repository's `.agents/skills/`, which a Claude-based agent does not read) are offered under
 * `.claude/skills/`; the repository's quarantined skill and a linked name that was never installed
 * are not. The scripted model is the only stand-in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AcpTransport } from '../../src/adapters/acp/acp-transport.js';
import { reply } from '../support/scripted-model-server.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { messagesSent, startRunnerSkillsScenario } from '../support/runner-skills-scenario.js';
import { REAL_ACP_AGENT } from '../support/real-acp-agent.js';

let fixture: ClaudeCodeFixture | null = null;
let removeSources: (() => Promise<void>) | null = null;

afterAll(async () => {
  await fixture?.dispose();
  await removeSources?.();
});


describe('an ACP agent sees the scanned skills (SKL-5, RLY-7)', () => {
  it('materializes the installed and the scanned repo skill into the checkout and claude-agent-acp offers them; never the quarantined or the unscanned one', async () => {
    const scenario = await startRunnerSkillsScenario({
      repoSkillsFolder: '.agents/skills',
      zebraBody: 'Zebra stripes are unique.\n',
      adapter: {
        id: 'acp',
        transport: (app, dataRoot) => new AcpTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, commands: { '*': { command: process.execPath, args: [REAL_ACP_AGENT] } } }),
      },
    });
    fixture = scenario.fixture;
    removeSources = scenario.removeSources;
    const f = fixture;
    const conversationId = scenario.conversationId;
    f.model.script(reply().text('noted'));
    const before = f.model.requests.length;
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${conversationId}/messages`, { text: 'hello', agentId: f.agentId });
    expect(posted.status).toBe(202);
    const detail = await f.waitForRun(posted.body.run.id, 120_000);
    expect(detail.run.state).toBe('completed');

    const worktree = join(f.workspaceDir, 'worktrees', conversationId);
    // Written where the agent looks, with the scanned bytes.
    expect(readFileSync(join(worktree, '.claude', 'skills', 'zebra-facts', 'SKILL.md'), 'utf8')).toContain('Zebra stripes are unique.');
    expect(readFileSync(join(worktree, '.agents', 'skills', 'zebra-facts', 'SKILL.md'), 'utf8')).toContain('Zebra stripes are unique.');
    expect(existsSync(join(worktree, '.claude', 'skills', 'okapi-notes', 'SKILL.md'))).toBe(true);
    expect(existsSync(join(worktree, '.claude', 'skills', 'okapi-evil'))).toBe(false);
    expect(existsSync(join(worktree, '.claude', 'skills', 'never-scanned'))).toBe(false);
    // The agent's own discovery offered them to the model.
    const sent = messagesSent(f, before);
    expect(sent).toContain('zebra-facts');
    expect(sent).toContain('QX-42');
    expect(sent).toContain('okapi-notes');
    expect(sent).toContain('QX-77');
    // The quarantined skill sits in the repository's .agents/skills/, yet nothing of it reaches the model.
    expect(existsSync(join(worktree, '.agents', 'skills', 'okapi-evil', 'SKILL.md'))).toBe(true);
    expect(sent).not.toContain('QX-99');
    expect(sent).not.toContain('okapi-evil');
    expect(sent).not.toContain('never-scanned');
    // Kept out of the agent's commits.
    expect(readFileSync(join(worktree, '.git', 'info', 'exclude'), 'utf8')).toContain('/.claude/skills/zebra-facts/');
  }, 240_000);
});
