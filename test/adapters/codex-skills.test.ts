/**
 * SKL-5 with the real `codex app-server`: the agent's installed, scanned skill and the active
 * repository's scanned repo skill are materialized into the run's server-owned skills folder, which
 * Codex gets as its only extra skills root; Codex's own discovery lists them to the model (seen in
 * the scripted model's request) and the model reads a body from there. The repository's quarantined
 * skill — sitting in the checkout's own `.agents/skills/`, where Codex looks natively — is switched
 * off and never reaches the model; a linked name that was never installed is not materialized.
 * The scripted model is the only stand-in.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodexTransport } from '../../src/adapters/codex/codex-transport.js';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { questionCards } from '../support/relay-fixture.js';
import { codexSkillsListing } from '../support/codex-skills-listing.js';
import { startCodexSkillsScenario } from '../support/codex-skills-scenario.js';

let fixture: ClaudeCodeFixture | null = null;
let removeSources: (() => Promise<void>) | null = null;
let sourceDir = '';

afterAll(async () => {
  await fixture?.dispose();
  await removeSources?.();
});

const responsesSent = (f: ClaudeCodeFixture, from: number): string =>
  JSON.stringify(f.model.requests.slice(from).filter((request) => request.path.endsWith('/responses')).map((request) => (request as any).body));

describe('Codex sees exactly the scanned skills (SKL-5)', () => {
  it('lists the installed skill and the active repository’s scanned skill and reads a body from the run’s folder; never the quarantined or the unscanned one', async () => {
    const scenario = await startCodexSkillsScenario();
    fixture = scenario.fixture;
    removeSources = scenario.removeSources;
    sourceDir = scenario.sourceDir;
    const f = fixture;
    const conversationId = scenario.conversationId;
    f.model.script(
      reply((request) => {
        // The model reads a body where Codex's listing says the skill is.
        const zebra = codexSkillsListing(request.allText)?.skills.find((skill) => skill.name === 'zebra-facts');
        return reply().tool('exec_command', { cmd: `cat ${zebra?.file ?? 'missing'}` });
      }),
      reply().text('noted'),
    );
    const before = f.model.requests.length;
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${conversationId}/messages`, { text: 'tell me about zebras', agentId: f.agentId });
    expect(posted.status).toBe(202);
    const runId = posted.body.run.id;
    const detail = await f.waitForRun(runId, 120_000);
    expect(detail.run.state).toBe('completed');

    const requests = f.model.requests.slice(before).filter((request) => request.path.endsWith('/responses'));
    const listing = codexSkillsListing(requests[0]!.allText);
    // Exactly the scanned set: the installed skill and the active repository's scanned one, nothing
    // of Codex's own (bundled system skills, the checkout's .agents/skills/), no unscanned name.
    expect(listing?.skills.map((skill) => skill.name).sort()).toEqual(['okapi-notes', 'zebra-facts']);
    expect(listing?.skills.find((skill) => skill.name === 'zebra-facts')?.description).toContain('QX-42');
    const runSkills = join(f.workspaceDir, 'codex', 'runs', runId, 'skills-plugin');
    for (const skill of listing!.skills) expect(skill.file).toBe(join(runSkills, skill.name, 'SKILL.md'));
    // The body was read from the run's server-owned folder.
    expect(requests.at(-1)!.lastToolResult?.content).toContain('QB-42');
    // The quarantined skill is in the checkout's .agents/skills/, where Codex looks, yet nothing of it reaches the model.
    const worktree = join(f.workspaceDir, 'worktrees', conversationId);
    expect(existsSync(join(worktree, '.agents', 'skills', 'okapi-evil', 'SKILL.md'))).toBe(true);
    const sent = responsesSent(f, before);
    expect(sent).not.toContain('QX-99');
    expect(sent).not.toContain('okapi-evil');
    // The folder was the run's own and went with it.
    expect(existsSync(join(f.workspaceDir, 'codex', 'runs', runId))).toBe(false);
  }, 240_000);

  it('in bubblewrap the run’s skills folder is readable and read-only for Codex: the body loads, a write to it fails (SBX-1)', async () => {
    await fixture?.dispose();
    fixture = await startClaudeCodeFixture({
      autonomy: 'actFreely',
      adapter: {
        id: 'codex',
        transport: (app, dataRoot) => new CodexTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'auto', allowUnsandboxed: false, askUser: questionCards(app) }),
      },
    });
    const f = fixture;
    const created = await f.api('POST', `/api/workspaces/${f.workspaceId}/skills/sources`, { url: sourceDir });
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/skills/install`, { sourceId: created.body.id, path: 'skills/zebra-facts' })).status).toBe(201);
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { skills: ['zebra-facts'] })).status).toBe(200);
    let file = '';
    // Escalated commands: inside bubblewrap Codex's own sandbox cannot start, so they are what runs (through the gate).
    const run = (cmd: string) => reply().tool('exec_command', { cmd, sandbox_permissions: 'require_escalated', justification: 'skill' });
    f.model.script(
      reply((request) => {
        file = codexSkillsListing(request.allText)?.skills.find((skill) => skill.name === 'zebra-facts')?.file ?? 'missing';
        return run(`cat ${file}`);
      }),
      reply(() => run(`echo tampered >> ${file}`)),
      reply().text('done'),
    );
    const runId = await f.send('zebras?');
    const detail = await f.waitForRun(runId, 120_000);
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    const requests = f.model.requests.filter((request) => request.path.endsWith('/responses'));
    expect(file).toBe(join(f.workspaceDir, 'codex', 'runs', runId, 'skills-plugin', 'zebra-facts', 'SKILL.md'));
    expect(requests[1]!.lastToolResult?.content).toContain('QB-42');
    expect(requests[2]!.lastToolResult?.content).toMatch(/Read-only file system/);
  }, 240_000);
});
