import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyShellCommand, compilePolicy, decideAction, EFFECT_CLASSES, loadShellParser, shellAction, type PolicyContext } from '../../src/core/index.js';
import { startProbeServer, type ProbeServer } from '../support/policy-probe-server.js';

/**
 * SEC-5, POL-3: code the classifier cannot see may do anything a visible command does — push, commit,
 * read secrets, install packages. Facets combine most-restrictively and deny beats ask, so unseen code
 * must carry every effect class: with only a few, a rule denying one it lacked (`gitPush`) was outvoted
 * by the default ask of one it had (`fileDelete`), and `python3 push.py` became an approvable ask.
 */

const UNSEEN = ['python3 push.py', 'eval "$CMD"', 'node -e "require(\'child_process\').execSync(\'git push\')"', 'make release', 'npm run ship', './unknown-binary --go', 'cat steps | sh'];
const CONTEXT: PolicyContext = { mode: 'chat', autonomy: 'actWithApproval', workspaceId: 'ws_1' };

beforeAll(async () => {
  await loadShellParser();
});

describe('unseen code carries every effect class (SEC-5)', () => {
  it.each(EFFECT_CLASSES.map((effectClass) => [effectClass]))('SEC-5: a %s deny rule denies every command running unseen code, never asks', (effectClass) => {
    const policy = compilePolicy([{ id: `no-${effectClass}`, scope: 'workspace', scopeId: 'ws_1', match: { kind: 'class', effectClass }, decision: 'deny' }]);
    for (const command of UNSEEN) {
      const decision = decideAction(policy, shellAction(classifyShellCommand(command)), CONTEXT);
      expect({ command, decision: decision.decision, rule: decision.decidedBy.ruleId }).toEqual({ command, decision: 'deny', rule: `no-${effectClass}` });
    }
  });
});

describe('SEC-5 over real HTTP: a push deny is not turned into an ask by unseen code', () => {
  let server: ProbeServer;
  const api = (method: string, path: string, body?: unknown) => server.api(method, path, body);
  beforeAll(async () => {
    server = await startProbeServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('SEC-5: under a gitPush deny, python3 push.py is denied by that rule; without the rule it asks; a read still runs', async () => {
    expect((await api('POST', '/policy/probe', { command: 'python3 push.py' })).body).toMatchObject({ decision: 'ask', classes: expect.arrayContaining(['gitPush']) });
    const rule = await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'deny' });
    expect(rule.status).toBe(201);
    try {
      for (const command of UNSEEN) {
        expect((await api('POST', '/policy/probe', { command })).body, command).toMatchObject({ decision: 'deny', decidedBy: { scope: 'workspace', ruleId: rule.body.id } });
      }
      // Even the autopilot dial, which turns asks into allows, keeps the deny.
      expect((await api('POST', '/policy/probe', { command: 'python3 push.py', autonomy: 'actFreely' })).body).toMatchObject({ decision: 'deny' });
      expect((await api('POST', '/policy/probe', { command: 'git status' })).body).toMatchObject({ decision: 'allow' });
    } finally {
      await api('DELETE', `/policy/rules/${rule.body.id}`);
    }
  });
});
