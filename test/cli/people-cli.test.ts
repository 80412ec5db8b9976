/** TEAM-1/TEAM-2 from the command line against a real server process: `people invite | list | role | remove`, acting as the token's person. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

let server: ServeProcess;
const cli = (...args: string[]) => runCli(server.dataRoot, ...args);

beforeAll(async () => {
  server = await startServeProcess({});
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** Accepts an invitation link the way its form does, and makes the newcomer a personal token. */
async function join(url: string, name: string): Promise<string> {
  const code = new URL(url).searchParams.get('code')!;
  const origin = new URL(url).origin;
  const accepted = await fetch(`${origin}/auth/join`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams({ code, name }).toString() });
  expect(accepted.status).toBe(303);
  const cookie = /cc_session=[^;]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
  const token = await fetch(`${origin}/api/people/me/tokens`, { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'cli' }) });
  return ((await token.json()) as { token: string }).token;
}

describe('control-center people (TEAM-1, TEAM-2)', () => {
  it('invites by a one-time link, lists roles, changes a role, refuses a bad role and a self-change, removes', async () => {
    const invited = await cli('people', 'invite', 'member', '--email', 'dana@example.com');
    expect(invited.stderr).toBe('');
    const url = /https?:\/\/\S+\/auth\/join\?code=\S+/.exec(invited.stdout)![0];
    const danaToken = await join(url, 'Dana');
    await expect.poll(async () => (await cli('people', 'list')).stdout, { timeout: 60_000 }).toMatch(/member\s+Dana\s+dana@example\.com/);
    expect((await cli('people', 'list')).stdout).toMatch(/owner\s+owner/);

    const bad = await cli('people', 'role', 'Dana', 'superuser');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('admin, member, viewer');
    expect((await cli('people', 'role', 'dana@example.com', 'viewer')).stdout).toContain('Dana is now viewer');

    // Dana's CLI acts as Dana: a viewer makes no invitations and cannot change her own role.
    const asDana = (...args: string[]) => runCli(server.dataRoot, '--token', danaToken, ...args);
    const refusedInvite = await asDana('people', 'invite', 'admin');
    expect(refusedInvite.code).not.toBe(0);
    expect(refusedInvite.stderr).toContain('role');
    expect((await asDana('people', 'role', 'Dana', 'admin')).code).not.toBe(0);
    expect((await cli('people', 'list')).stdout).toMatch(/viewer\s+Dana/);

    expect((await cli('people', 'remove', 'Dana', '--everywhere')).stdout).toContain('Removed Dana');
    expect((await asDana('people', 'list')).code).not.toBe(0);
    expect((await cli('people', 'list')).stdout).not.toContain('Dana');
  }, 420_000);
});
