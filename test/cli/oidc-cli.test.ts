/** TEAM-1 from the command line against a real server: `people oidc set | map | unmap | show`, the client secret from the environment and never printed. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
const cli = (...args: string[]) => runCli(server.dataRoot, ...args);

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Engineering')).id;
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

describe('control-center people oidc (TEAM-1)', () => {
  it('sets the provider with the secret from the environment, maps and unmaps groups, and never prints the secret', async () => {
    const secret = 'a-secret-only-in-the-environment';
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--data-dir', server.dataRoot, 'people', 'oidc', 'set', '--issuer', 'https://idp.example.com', '--client-id', 'cc', '--name', 'Acme SSO'], {
      env: { ...process.env, CONTROL_CENTER_OIDC_CLIENT_SECRET: secret },
    });
    expect(stdout).toContain('client: cc, secret set');
    expect(stdout).toContain(`redirect URI (register it with the provider): ${server.url}/auth/oidc/callback`);
    expect(stdout).not.toContain(secret);

    expect((await cli('people', 'oidc', 'map', 'eng', 'member')).stdout).toContain(`group eng → member in ${workspaceId}`);
    expect((await cli('people', 'oidc', 'map', 'eng', 'admin')).stdout).toContain(`group eng → admin in ${workspaceId}`);
    const badRole = await cli('people', 'oidc', 'map', 'eng', 'owner');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('must be one of admin, member, viewer');

    const shown = await cli('people', 'oidc', 'show', '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({ enabled: false, providerName: 'Acme SSO', clientSecret: 'set', roleMappings: [{ group: 'eng', workspaceId, role: 'admin' }] });
    expect(shown.stdout).not.toContain(secret);

    const plainHttp = await cli('people', 'oidc', 'set', '--issuer', 'http://idp.example.com');
    expect(plainHttp.code).not.toBe(0);
    expect(plainHttp.stderr).toContain('https');

    expect((await cli('people', 'oidc', 'unmap', 'eng')).stdout).toContain('mapping: (none');
    expect((await cli('people', 'oidc', 'unmap', 'eng')).code).not.toBe(0);
  }, 120_000);
});
