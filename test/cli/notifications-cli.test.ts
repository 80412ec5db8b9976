/** NTF-1 from the command line against a real server: `notifications settings | add-webhook | list | events | test | log | remove`. */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { LocalHttpReceiver } from '../support/notification-receivers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let hooks: LocalHttpReceiver;
const cli = (...args: string[]) => runCli(server.dataRoot, ...args);

beforeAll(async () => {
  server = await startTestServer();
  hooks = await LocalHttpReceiver.start();
}, 60_000);

afterAll(async () => {
  await server?.dispose();
  await hooks?.close();
});

describe('control-center notifications (NTF-1)', () => {
  it('adds a signed webhook, refuses a private one until the owner allows it, sends a test and shows the log', async () => {
    const refused = await cli('notifications', 'add-webhook', `${hooks.url}/cli`, '--name', 'Chat');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('not a public address');
    expect((await cli('notifications', 'settings', '--allow-private-targets', 'yes')).stdout).toContain('private targets: allowed');

    const badKind = await cli('notifications', 'add-webhook', `${hooks.url}/cli`, '--events', 'approval,everything');
    expect(badKind.code).not.toBe(0);
    expect(badKind.stderr).toContain('events');

    const added = await cli('notifications', 'add-webhook', `${hooks.url}/cli`, '--name', 'Chat', '--events', 'approval,mention');
    expect(added.stderr).toBe('');
    const channelId = /^(nch\S+)/m.exec(added.stdout)![1]!;
    const secret = /signing secret \(shown once\): (\S+)/.exec(added.stdout)![1]!;
    const listed = (await cli('notifications', 'list')).stdout;
    expect(listed).toMatch(/webhook\s+Chat\s+.*approval,mention/);
    expect(listed).not.toContain(secret);
    expect((await cli('notifications', 'events', channelId, 'question')).stdout).toMatch(/question$/m);

    expect((await cli('notifications', 'test', channelId)).stdout).toMatch(/^queued ndl/);
    await expect.poll(async () => (await cli('notifications', 'log')).stdout, { timeout: 30_000 }).toMatch(/delivered\s+Test notification from Control Center\s+#1 ok/);
    const received = hooks.to('/cli')[0]!;
    const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received.headers['x-control-center-signature']))!;
    expect(signature).toBe(createHmac('sha256', secret).update(`${timestamp}.${received.body.toString('utf8')}`).digest('hex'));

    expect((await cli('notifications', 'remove', channelId)).stdout).toContain(`removed ${channelId}`);
    expect((await server.api('GET', '/api/people/me/notification-channels')).body.channels).toEqual([]);
    // Each command is a fresh process under tsx: seconds apiece on a loaded machine.
  }, 240_000);
});
