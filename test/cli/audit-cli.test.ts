/**
 * TEAM-3 from the command line against a real server: `control-center audit` prints who did what as
 * a table (names, kinds, no trailing spaces), filters by person, kind and time, prints JSON, refuses a
 * bad time plainly, and acts as the token's person — a viewer's CLI is refused by role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAgainst } from '../support/cli-runner.js';
import { asPerson, invitePerson, type InvitedPerson } from '../support/people-fixture.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let ws: string;
let ada: InvitedPerson;
let vera: InvitedPerson;
const cli = (...args: string[]) => runCliAgainst(server, ws, ...args);

beforeAll(async () => {
  server = await startTestServer();
  ws = (await createSeededWorkspace(server, 'Audit')).id;
  ada = await invitePerson(server, ws, 'admin', 'Ada');
  vera = await invitePerson(server, ws, 'viewer', 'Vera');
  const rule = await asPerson(server, ada.token, 'POST', `/api/workspaces/${ws}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'npm publish' }, decision: 'deny' });
  expect(rule.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.dispose();
});

describe('control-center audit (TEAM-3)', () => {
  it('prints who did what as a table, filtered by person, kind and time', async () => {
    const all = await cli('audit');
    expect(all.stderr).toBe('');
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WHEN \(UTC\)\s+WHO\s+KIND\s+WHAT$/);
    expect(lines.filter((line) => line !== line.trimEnd())).toEqual([]);
    expect(all.stdout).toMatch(/Ada\s+policy\.rule_added\s+Added rule: deny command npm publish/);
    expect(all.stdout).toMatch(/invitation\.created\s+Invited someone with a link as viewer/);

    const byAda = await cli('audit', '--person', 'Ada');
    expect(byAda.stdout).toContain('policy.rule_added');
    expect(byAda.stdout).not.toContain('invitation.created');

    const policy = await cli('audit', '--kind', 'policy', '--since', '1h');
    expect(policy.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect((await cli('audit', '--kind', 'policy', '--since', '2999-01-01T00:00:00Z')).stdout).toContain('Nothing recorded matches.');

    const json = JSON.parse((await cli('audit', '--kind', 'policy.rule_added', '--json')).stdout) as Array<{ actor: { id: string; name: string } }>;
    expect(json.map((entry) => entry.actor)).toEqual([{ kind: 'person', id: ada.personId, name: 'Ada' }]);
  });

  it('refuses a bad time plainly, and a viewer by role', async () => {
    const bad = await cli('audit', '--since', 'yesterday');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('30m, 2h or 7d');
    const asVera = await runCliAgainst({ url: server.url, token: vera.token }, ws, 'audit');
    expect(asVera.code).not.toBe(0);
    expect(asVera.stderr).toContain('role');
    expect(asVera.stdout).toBe('');
  });
});
