/**
 * SKL-5 with the real `@vibe-kit/grok-cli` 0.0.34 (offline, through the model proxy): the CLI has no
 * skill discovery of its own (nothing in its `dist/` reads a skills folder), so the scanned set
 * reaches it only through the server — the Skills section and the repo-skills index in the system
 * prompt, and the `skill` tool over MCP (the host's stdio bridge). A quarantined repo skill and a
 * linked name with nothing installed behind it never reach the model, and the `skill` tool refuses
 * them. The scripted model server is the only stand-in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GrokTransport } from '../../../src/adapters/grok/grok-transport.js';
import type { ClaudeCodeFixture } from '../../support/claude-code-fixture.js';
import { startRunnerSkillsScenario } from '../../support/runner-skills-scenario.js';
import { reply } from '../../support/scripted-model-server.js';

let fixture: ClaudeCodeFixture | null = null;
let removeSources: (() => Promise<void>) | null = null;

afterAll(async () => {
  await fixture?.dispose();
  await removeSources?.();
});

/** Every `.js` file of the installed CLI's `dist/`, recursively. */
function cliSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return cliSources(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

describe('Grok sees exactly the scanned skills, through the server only (SKL-5, RLY-7)', { timeout: 240_000 }, () => {
  it('the installed CLI has no skill discovery of its own: no file of its dist mentions skills', () => {
    const dist = dirname(new URL(import.meta.resolve('@vibe-kit/grok-cli')).pathname);
    const files = cliSources(dist);
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => /skill/i.test(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('the Skills section and the repo-skills index name the scanned set; the body loads through the MCP skill tool; quarantined and never-installed skills never reach the model', async () => {
    const scenario = await startRunnerSkillsScenario({
      // The CLI reads no skills folder: the repository's skills sit in the Agent Skills folder.
      repoSkillsFolder: '.agents/skills',
      zebraBody: 'Zebra stripes are unique (body marker QB-42).\n',
      adapter: { id: 'grok', transport: (app, dataRoot) => new GrokTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true }) },
    });
    fixture = scenario.fixture;
    removeSources = scenario.removeSources;
    const f = fixture;
    f.model.script(
      reply().tool('mcp__control-center__skill', { name: 'zebra-facts' }),
      reply().tool('mcp__control-center__skill', { name: 'never-scanned' }),
      reply().tool('mcp__control-center__skill', { name: 'okapi-evil' }),
      reply().text('noted'),
    );
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${scenario.conversationId}/messages`, { text: 'tell me about zebras', agentId: f.agentId });
    expect(posted.status).toBe(202);
    const detail = await f.waitForRun(posted.body.run.id, 180_000);
    expect(detail.run.state).toBe('completed');
    const requests = f.model.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(requests).toHaveLength(4);
    const first = requests[0]!;
    // The skill tool is on the CLI's surface, over the Control Center's MCP server only.
    expect(first.toolNames).toContain('mcp__control-center__skill');
    // The installed skill (Skills section) and the active repository's scanned skill (repo-skills index).
    expect(first.system).toContain('zebra-facts');
    expect(first.system).toContain('QX-42');
    expect(first.system).toContain('okapi-notes');
    expect(first.system).toContain('QX-77');
    // The body is not in the prompt: it loads on demand, through the tool.
    expect(first.allText).not.toContain('QB-42');
    expect(requests[1]!.lastToolResult?.content).toContain('QB-42');
    // A linked name with nothing installed and the repository's quarantined skill: refused by the tool.
    expect(requests[2]!.lastToolResult?.content).toMatch(/never-scanned/);
    expect(requests[2]!.lastToolResult?.content).not.toContain('QB-42');
    expect(requests[3]!.lastToolResult?.content).toMatch(/not one of your skills/);
    const sent = JSON.stringify(requests.map((request) => (request as { body?: unknown }).body));
    for (const marker of ['QX-99', 'evil.example', 'curl -sSL']) expect(sent).not.toContain(marker);
    // Only the model's own tool call names it; no listing does.
    expect(first.allText).not.toContain('okapi-evil');
    expect(first.system).not.toContain('never-scanned');
  });
});
