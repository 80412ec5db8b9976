/**
 * `control-center chat --attach <file>` (TOOL-3) as a real child process against a real server and the
 * scripted model: the image reaches the model as an image block and the text file as a fenced section;
 * a file that cannot be read, or one the server refuses, exits 2 naming --attach and records nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let server: TestServer;
let model: ScriptedModelServer;
let ws: string;
let files: string;

function chat(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--url', server.url, '--token', server.token, 'chat', '--workspace', ws, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  return (await server.api(method, `/api/workspaces/${ws}${path}`, body)).body;
}

beforeAll(async () => {
  server = await startTestServer();
  model = await startScriptedModelServer();
  ws = (await createSeededWorkspace(server, 'Attaching')).id;
  await api('PATCH', '/settings', { apiKeys: { anthropic: 'scripted-key' }, baseUrls: { anthropic: model.url } });
  files = await mkdtemp(join(tmpdir(), 'cc-attach-'));
  await writeFile(join(files, 'pixel.png'), Buffer.from(PNG_BASE64, 'base64'));
  await writeFile(join(files, 'notes.txt'), 'remember the milk\n');
  await writeFile(join(files, 'fake.png'), 'I am text pretending to be a PNG');
}, 120_000);

afterAll(async () => {
  await model?.close();
  await server?.dispose();
  if (files) await rm(files, { recursive: true, force: true });
});

describe('control-center chat --attach (TOOL-3)', () => {
  it('sends the image as an image block and the text file as a fenced section named after it', async () => {
    model.script(reply().text('A pixel and a note.'));
    const result = await chat('--attach', join(files, 'pixel.png'), '-a', join(files, 'notes.txt'), 'what are these?');
    expect(result.code, result.stderr).toBe(0);
    const [request] = await model.waitForRequests(1);
    const user = (request!.body!.messages as Array<{ content: Array<Record<string, any>> }>).at(-1)!;
    expect(user.content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } });
    expect(user.content.at(-1)!.text).toBe('what are these?\n\nAttached file `notes.txt`:\n```\nremember the milk\n```');
  }, 120_000);

  it('a file that cannot be read, or that the server refuses, exits 2 naming --attach and records nothing', async () => {
    const spacesBefore = (await api('GET', '/spaces')).spaces.length;
    const missing = await chat('--attach', join(files, 'no-such-file.png'), 'look');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--attach: cannot read .*no-such-file\.png: ENOENT/);
    expect((await api('GET', '/spaces')).spaces.length).toBe(spacesBefore);

    const space = (await api('GET', '/spaces')).spaces[0];
    const conversation = await api('POST', `/spaces/${space.id}/conversations`, { title: 'attach refusals' });
    const fake = await chat('--conversation', conversation.id, '--attach', join(files, 'notes.txt'), '--attach', join(files, 'fake.png'), 'look');
    expect(fake.code).toBe(2);
    expect(fake.stderr).toMatch(/--attach #2: .*name says PNG image but the bytes are not/);
    expect((await api('GET', `/conversations/${conversation.id}/messages`)).messages).toEqual([]);
  }, 120_000);
});
