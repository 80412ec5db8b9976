import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFakeAcpAgent } from '../support/fake-acp-fixture.js';
import { pollFor } from '../support/relay-fixture.js';

/**
 * xAI's own Grok CLI speaks ACP (`grok agent stdio`, RLY-7): it is covered by the ACP transport, not by
 * the npm Grok CLI's transport. The stand-in is the ACP SDK's fake agent posing as Grok: named `grok`,
 * advertising Grok's permission modes — `ask` (its default), `plan`, `auto` (a classifier approves
 * "safe" calls without asking the client) and `always-approve`. The protocol, the transport, the policy
 * engine and the approvals are real.
 */
const start = useFakeAcpAgent({ agentArgs: ['--name', 'grok'], modes: ['ask', 'plan', 'auto', 'always-approve'] });

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
