/**
 * SKL-5 with the real Claude Agent SDK and its engine: the agent's installed, scanned skill and the
 * active repository's scanned repo skill are materialized into the run's server-owned plugin folder,
 * handed to the SDK's `plugins` option, and the engine's own skill discovery offers them to the model
 * (seen in the scripted model's request). The repository's quarantined skill — sitting in the
 * worktree's own `.claude/skills/` — is never offered, and a linked name that was never installed
 * (unscanned) is not materialized. The scripted model is the only stand-in.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { reply } from '../support/scripted-model-server.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { questionCards } from '../support/relay-fixture.js';
import { messagesSent, startRunnerSkillsScenario } from '../support/runner-skills-scenario.js';

let fixture: ClaudeCodeFixture | null = null;
let removeSources: (() => Promise<void>) | null = null;

afterAll(async () => {
  await fixture?.dispose();
  await removeSources?.();
});


describe('the Claude Agent SDK sees exactly the scanned skills (SKL-5)', () => {
  it('offers the installed skill and the active repository’s scanned skill, never the quarantined or the unscanned one', async () => {
    const scenario = await startRunnerSkillsScenario({
      repoSkillsFolder: '.claude/skills',
      zebraBody: 'Zebra stripes are unique.\n',
      adapter: {
        id: 'claude-agent-sdk',
        transport: (app, dataRoot) => new ClaudeAgentSdkTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, askUser: questionCards(app) }),
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

    const sent = messagesSent(f, before);
    // The engine's own listing names plugin skills `<plugin>:<skill>`: these came from the materialized plugin.
    expect(sent).toContain('control-center-skills:zebra-facts');
    expect(sent).toContain('QX-42');
    expect(sent).toContain('control-center-skills:okapi-notes');
    expect(sent).toContain('QX-77');
    // The quarantined skill is in the worktree's .claude/skills/, yet nothing of it reaches the model.
    const worktree = join(f.workspaceDir, 'worktrees', conversationId);
    expect(existsSync(join(worktree, '.claude', 'skills', 'okapi-evil', 'SKILL.md'))).toBe(true);
    expect(sent).not.toContain('QX-99');
    expect(sent).not.toContain('okapi-evil');
    expect(sent).not.toContain('control-center-skills:never-scanned');
    // The plugin folder was the run's own and went with it.
    expect(existsSync(join(f.workspaceDir, 'claude-agent-sdk', 'runs', posted.body.run.id))).toBe(false);
  }, 240_000);
});
