/**
 * SKL-5 with the real `@github/copilot` runtime (offline, BYOK through the model proxy): the agent's
 * installed, scanned skill and the active repository's scanned repo skill are materialized into the
 * run's server-owned skills folder, the session's only skill directory; the runtime offers them to the
 * model (seen in the scripted model's request). The skills the runtime finds on its own — the
 * checkout's quarantined and never-scanned ones, one planted in `COPILOT_HOME`, its built-ins — are
 * disabled and never reach the model. The scripted model is the only stand-in.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CopilotTransport } from '../../src/adapters/copilot/copilot-transport.js';
import { safeSegment } from '../../src/adapters/runner-setup.js';
import { reply } from '../support/scripted-model-server.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { questionCards } from '../support/relay-fixture.js';
import { startRunnerSkillsScenario } from '../support/runner-skills-scenario.js';
import { skillMd } from '../support/skill-source-fixture.js';

let fixture: ClaudeCodeFixture | null = null;
let removeSources: (() => Promise<void>) | null = null;
let sourceDir = '';

/** The runtime unpacks ≈235 MB on first start; shared with test/adapters/copilot.test.ts. */
const runtimeCacheDir = join(process.cwd(), 'node_modules', '.cache', 'control-center-copilot-runtime');

afterAll(async () => {
  await fixture?.dispose();
  await removeSources?.();
});

describe('Copilot sees exactly the scanned skills (SKL-5)', () => {
  it('offers the installed skill and the active repository’s scanned skill; never the checkout’s own, a planted one or the unscanned name', async () => {
    const scenario = await startRunnerSkillsScenario({
      repoSkillsFolder: '.agents/skills',
      zebraBody: 'Zebra stripes are unique (body marker QB-42).\n',
      extraRepoFiles: { '.github/skills/gh-hidden/SKILL.md': skillMd('gh-hidden', 'A skill in a folder nobody scans (fixture marker QX-98).') },
      adapter: {
        id: 'copilot',
        transport: (app, dataRoot) => new CopilotTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, askUser: questionCards(app), runtimeCacheDir }),
      },
    });
    fixture = scenario.fixture;
    removeSources = scenario.removeSources;
    sourceDir = scenario.sourceDir;
    const f = fixture;
    const conversationId = scenario.conversationId;
    // A personal skill left in the session's COPILOT_HOME by an earlier turn (the runner can write there).
    const sessionHome = join(f.workspaceDir, 'copilot', 'sessions', safeSegment(`${conversationId}-${f.agentId}`));
    await mkdir(join(sessionHome, 'skills', 'planted-skill'), { recursive: true });
    await writeFile(join(sessionHome, 'skills', 'planted-skill', 'SKILL.md'), skillMd('planted-skill', 'Left behind by an earlier turn (fixture marker QX-97).'));

    // The model loads a scanned skill with Copilot's own `skill` tool, then tries a checkout skill by name.
    f.model.script(reply().tool('skill', { skill: 'zebra-facts' }), reply().tool('skill', { skill: 'okapi-evil' }), reply().text('noted'));
    const before = f.model.requests.length;
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${conversationId}/messages`, { text: 'tell me about zebras', agentId: f.agentId });
    expect(posted.status).toBe(202);
    const runId = posted.body.run.id;
    const detail = await f.waitForRun(runId, 180_000);
    expect(detail.run.state).toBe('completed');
    const requests = f.model.requests.slice(before).filter((request) => request.path.endsWith('/responses'));
    // Exactly the scanned set in the runtime's own listing.
    const listed = [...requests[0]!.allText.matchAll(/<skill>\s*<name>([^<]+)<\/name>/g)].map((match) => match[1]).sort();
    expect(listed).toEqual(['okapi-notes', 'zebra-facts']);
    // The scanned body loads (from the run's folder); the checkout's quarantined skill does not.
    expect(JSON.stringify((requests[1] as any).body)).toContain('QB-42');
    expect(requests[2]!.lastToolResult?.content ?? '').not.toContain('curl');
    const sent = JSON.stringify(requests.map((request) => (request as any).body));
    for (const marker of ['QX-99', 'QX-98', 'QX-97', 'evil.example']) expect(sent).not.toContain(marker);
    // (`never-scanned` is still a name in the Control Center's own Skills section; the runtime does not list it.)
    for (const name of ['gh-hidden', 'planted-skill']) expect(sent).not.toContain(name);
    // The planted skill was in the COPILOT_HOME the run used; the run's skills folder went with the run.
    expect(existsSync(join(sessionHome, 'skills', 'planted-skill', 'SKILL.md'))).toBe(true);
    expect(existsSync(join(f.workspaceDir, 'copilot', 'runs', runId))).toBe(false);
  }, 300_000);

  it('in bubblewrap the runtime loads the scanned body from the run’s folder, which is read-only for it (SBX-1)', async () => {
    await fixture?.dispose();
    fixture = await startClaudeCodeFixture({
      autonomy: 'actFreely',
      adapter: {
        id: 'copilot',
        transport: (app, dataRoot) => new CopilotTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'auto', allowUnsandboxed: false, askUser: questionCards(app), runtimeCacheDir }),
      },
    });
    const f = fixture;
    const created = await f.api('POST', `/api/workspaces/${f.workspaceId}/skills/sources`, { url: sourceDir });
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/skills/install`, { sourceId: created.body.id, path: 'skills/zebra-facts' })).status).toBe(201);
    expect((await f.api('PATCH', `/api/workspaces/${f.workspaceId}/agents/${f.agentId}`, { skills: ['zebra-facts'] })).status).toBe(200);
    let runId = '';
    f.model.script(
      reply().tool('skill', { skill: 'zebra-facts' }),
      reply(() => reply().tool('bash', { command: `echo tampered >> ${join(f.workspaceDir, 'copilot', 'runs', runId, 'skills-plugin', 'zebra-facts', 'SKILL.md')}`, description: 'tamper' })),
      reply().text('done'),
    );
    runId = await f.send('zebras?');
    const detail = await f.waitForRun(runId, 180_000);
    expect(detail.run.state).toBe('completed');
    expect(detail.run.sandbox).toMatch(/^bubblewrap: /);
    const requests = f.model.requests.filter((request) => request.path.endsWith('/responses'));
    expect(JSON.stringify((requests[1] as any).body)).toContain('QB-42');
    expect(requests[2]!.lastToolResult?.content).toMatch(/Read-only file system/);
  }, 300_000);
});
