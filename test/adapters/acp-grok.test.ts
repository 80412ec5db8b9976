import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpTransport } from '../../src/adapters/acp/acp-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { pollFor } from '../support/relay-fixture.js';

/**
 * xAI's own Grok CLI speaks ACP (`grok agent stdio`, RLY-7): it is covered by the ACP transport, not by
 * the npm Grok CLI's transport. The stand-in is the ACP SDK's fake agent posing as Grok: named `grok`,
 * advertising Grok's permission modes — `ask` (its default), `plan`, `auto` (a classifier approves
 * "safe" calls without asking the client) and `always-approve`. The protocol, the transport, the policy
 * engine and the approvals are real.
 */
const FAKE_AGENT = fileURLToPath(new URL('../support/fake-acp-agent.mjs', import.meta.url));
const GROK_MODES = ['ask', 'plan', 'auto', 'always-approve'];
let fixture: ClaudeCodeFixture | null = null;

afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

async function start(options: { mode?: 'chat' | 'plan'; autonomy?: string } = {}): Promise<{ f: ClaudeCodeFixture; journal: () => Array<Record<string, any>> }> {
  let journalPath = '';
  fixture = await startClaudeCodeFixture({
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.autonomy ? { autonomy: options.autonomy } : {}),
    adapter: {
      id: 'acp',
      transport: (app, dataRoot) => {
        journalPath = join(dataRoot, 'grok-acp-journal.jsonl');
        writeFileSync(journalPath, '');
        const args = [FAKE_AGENT, '--name', 'grok', '--journal', journalPath, '--modes', GROK_MODES.join(',')];
        return new AcpTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true, commands: { '*': { command: process.execPath, args } } });
      },
    },
  });
  const journal = () =>
    readFileSync(journalPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { f: fixture, journal };
}

const setModes = (journal: () => Array<Record<string, any>>) => journal().filter((entry) => entry.event === 'setMode').map((entry) => entry.modeId);

describe('xAI’s Grok CLI over ACP: its permission requests are answered by the policy (POL-1, RLY-7)', () => {
  it('agent: Grok stays in its asking default; its command permission goes to the gate and runs; no always-approve is asked for', async () => {
    const { f, journal } = await start();
    const detail = await f.waitForRun(await f.send('@permission execute echo made > grok.txt'));
    expect(detail.run.state).toBe('completed');
    expect(readFileSync(join(f.worktreePath(), 'grok.txt'), 'utf8')).toBe('made\n');
    expect(setModes(journal)).toEqual([]);
    // Grok's per-session always-approve switch (`_meta.yoloMode`) is never sent.
    expect(journal().find((entry) => entry.event === 'newSession')!.meta).toBeNull();
    expect(journal().find((entry) => entry.event === 'permission')!.outcome).toEqual({ outcome: 'selected', optionId: 'yes' });
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', true]]);
  });

  it('ask: session/set_mode ask; the operator rejects the approval and the command never runs', async () => {
    const { f, journal } = await start({ autonomy: 'askFirst' });
    const target = join(f.worktreePath(), 'ask.txt');
    const runId = await f.send(`@permission execute echo no > ${target}`);
    const approval = await pollFor(async () => (await f.api('GET', `/api/workspaces/${f.workspaceId}/approvals?status=pending`)).body.approvals[0], 'an approval');
    expect((await f.api('POST', `/api/workspaces/${f.workspaceId}/approvals/${approval.id}/decision`, { decision: 'reject', reason: 'not now' })).status).toBe(200);
    expect((await f.waitForRun(runId)).run.state).toBe('completed');
    expect(existsSync(target)).toBe(false);
    expect(setModes(journal)).toEqual(['ask']);
    expect(journal().find((entry) => entry.event === 'prompt')!.text).not.toMatch(/Relay mode/);
    expect(journal().find((entry) => entry.event === 'permission')!.outcome).toEqual({ outcome: 'selected', optionId: 'no' });
  });

  it('plan: session/set_mode plan; the mode floor denies a mutating command and an edit is refused without asking', async () => {
    const { f, journal } = await start({ mode: 'plan' });
    const detail = await f.waitForRun(await f.send('@permission execute touch made.txt\n@permission edit edited.txt'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'made.txt'))).toBe(false);
    expect(existsSync(join(f.worktreePath(), 'edited.txt'))).toBe(false);
    expect(setModes(journal)).toEqual(['plan']);
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', false]]);
  });

  it('autopilot: neither auto nor always-approve is selected (both approve without asking us); the Autopilot line goes instead and the gate still answers', async () => {
    const { f, journal } = await start({ autonomy: 'actFreely' });
    const detail = await f.waitForRun(await f.send('@permission execute echo go > auto.txt'));
    expect(detail.run.state).toBe('completed');
    expect(existsSync(join(f.worktreePath(), 'auto.txt'))).toBe(true);
    expect(setModes(journal)).toEqual([]);
    expect(journal().find((entry) => entry.event === 'prompt')!.text).toMatch(/^\[Relay mode: Autopilot\]/);
    expect(f.decisions.map((entry) => [entry.action.kind, entry.allow])).toEqual([['command', true]]);
  });
});
