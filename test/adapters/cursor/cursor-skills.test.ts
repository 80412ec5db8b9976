/**
 * SKL-5 for Cursor (`@cursor/sdk` 1.0.31), against the fake at the transport's SDK seam (Cursor's
 * backend is not reachable here). The SDK takes MCP servers (`mcpServers`) but no skills folder of
 * its own choosing: its skills come only from its settings layers (`local.settingSources`: project,
 * user, team, plugins…) and the workspace folders (`cwd`, `dirs`), i.e. the agent's checkout, which is
 * deliberately never read. So the scanned set reaches Cursor through the server: the Skills section
 * and repo-skills index in the first message, and the `skill` tool of the Control Center's MCP server
 * (called here for real over HTTP by the fake, with the URL and token the transport gave it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CursorTransport } from '../../../src/adapters/cursor/cursor-transport.js';
import { CommandSandbox } from '../../../src/sandbox/command-sandbox.js';
import type { ClaudeCodeFixture } from '../../support/claude-code-fixture.js';
import { FakeCursorSdk } from '../../support/fake-cursor-sdk.js';
import { questionCards } from '../../support/relay-fixture.js';
import { startRunnerSkillsScenario } from '../../support/runner-skills-scenario.js';
import { eventsOf } from './cursor-fixture.js';

let fixture: ClaudeCodeFixture | null = null;
let removeSources: (() => Promise<void>) | null = null;

afterAll(async () => {
  await fixture?.dispose();
  await removeSources?.();
});

describe('Cursor sees exactly the scanned skills, through the server only (SKL-5, RLY-7)', { timeout: 120_000 }, () => {
  it('the first message names the scanned set; the body loads through the MCP skill tool; quarantined and never-installed skills are refused; no settings layer or extra folder is given to the SDK', async () => {
    const sdk = new FakeCursorSdk();
    const scenario = await startRunnerSkillsScenario({
      // The Agent Skills folder, which Cursor's project layer would also read were it on.
      repoSkillsFolder: '.agents/skills',
      zebraBody: 'Zebra stripes are unique (body marker QB-42).\n',
      env: { CURSOR_API_KEY: 'test-cursor-key' },
      adapter: {
        id: 'cursor',
        transport: (app, dataRoot) =>
          new CursorTransport({ hookSessions: app.hookSessions, commandSandbox: new CommandSandbox({ sandbox: 'none', hiddenPaths: [dataRoot] }), askUser: questionCards(app), allowUnsandboxed: true, sdk }),
      },
    });
    fixture = scenario.fixture;
    removeSources = scenario.removeSources;
    const f = fixture;
    sdk.script([
      { mcpTool: 'skill', args: { name: 'zebra-facts' } },
      { mcpTool: 'skill', args: { name: 'never-scanned' } },
      { mcpTool: 'skill', args: { name: 'okapi-evil' } },
      { text: 'noted' },
    ]);
    const posted = await f.api('POST', `/api/workspaces/${f.workspaceId}/conversations/${scenario.conversationId}/messages`, { text: 'tell me about zebras', agentId: f.agentId });
    expect(posted.status).toBe(202);
    const detail = await f.waitForRun(posted.body.run.id, 60_000);
    expect(detail.run.state).toBe('completed');

    // What the SDK was given: the Control Center's MCP server only, no settings layer, no extra folder.
    const options = sdk.created[0]!;
    expect(Object.keys(options.mcpServers ?? {})).toEqual(['control-center']);
    expect(options.local?.settingSources).toEqual([]);
    expect(options.local?.dirs).toBeUndefined();
    // The first message carries the system prompt: the installed skill and the scanned repo skill.
    const message = sdk.sends[0]!.message;
    for (const expected of ['zebra-facts', 'QX-42', 'okapi-notes', 'QX-77']) expect(message).toContain(expected);
    for (const absent of ['okapi-evil', 'QX-99', 'never-scanned', 'QB-42']) expect(message).not.toContain(absent);

    // What the SDK got back from the MCP server for each call, as the transport saw it (the MCP
    // server records its own end of each call too).
    const results = eventsOf(detail, 'tool_call_end')
      .filter((end) => end.result.details?.observedIn === 'cursor')
      .map((end) => end.result);
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ isError: false });
    expect(results[0].content).toContain('QB-42');
    for (const refused of results.slice(1)) {
      expect(refused.isError).toBe(true);
      expect(refused.content).not.toContain('QB-42');
      expect(refused.content).not.toContain('evil.example');
    }
    expect(results[1].content).toMatch(/never-scanned/);
    expect(results[2].content).toMatch(/not one of your skills/);
  });
});
