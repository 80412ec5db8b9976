/**
 * Finding 7 of the security issue: display names refuse control and invisible formatting characters,
 * a space's `repoPath` must be the top of an existing git repository, and model base URLs are http(s)
 * only. Each refusal is a 400 naming the field, over real HTTP, and changes nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let scratch: string;
let workspaceId: string;
let spaceId: string;
let conversationId: string;
let agentId: string;

/** Names that look harmless on screen and are not: one per class the refinement covers. */
const UNSAFE_NAMES = [
  'nul\u0000byte',
  'tab\there',
  'line\nbreak',
  'carriage\rreturn',
  'escape\u001b[31mred',
  'delete\u007f',
  'c1\u0085next-line',
  'c1\u009bcsi',
  'bidi \u202egnp.exe',
  'embed\u202aL',
  'isolate\u2066x\u2069',
  'zero\u200bwidth',
  'joiner\u200d',
  'mark\u200f',
  'bom\ufeff',
  'word\u2060joiner',
  'arabic\u061cmark',
  'line\u2028separator',
];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

async function expectRefused(response: { status: number; body: any }, field: string): Promise<void> {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.code).toBe('validation_failed');
  expect(response.body.error.field).toBe(field);
}

const ws = (path: string) => `/api/workspaces/${workspaceId}${path}`;

beforeAll(async () => {
  server = await startTestServer();
  scratch = await mkdtemp(join(tmpdir(), 'cc-input-'));
  workspaceId = (await createSeededWorkspace(server, 'Clean')).id;
  spaceId = (await server.api('POST', ws('/spaces'), { name: 'Room' })).body.id;
  conversationId = (await server.api('POST', ws(`/spaces/${spaceId}/conversations`), { title: 'Chat' })).body.id;
  agentId = (await server.api('GET', ws('/agents'))).body.agents[0].id;
}, 120_000);

afterAll(async () => {
  await server?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('display names refuse control characters', () => {
  it('workspace names: create and rename', async () => {
    const before = (await server.api('GET', '/api/workspaces')).body;
    for (const name of UNSAFE_NAMES) {
      await expectRefused(await server.api('POST', '/api/workspaces', { name }), 'name');
      await expectRefused(await server.api('PATCH', `/api/workspaces/${workspaceId}`, { name }), 'name');
    }
    expect((await server.api('GET', '/api/workspaces')).body).toEqual(before);
  });

  it('space names: create and rename', async () => {
    const before = (await server.api('GET', ws('/spaces'))).body;
    for (const name of UNSAFE_NAMES) {
      await expectRefused(await server.api('POST', ws('/spaces'), { name }), 'name');
      await expectRefused(await server.api('PATCH', ws(`/spaces/${spaceId}`), { name }), 'name');
    }
    expect((await server.api('GET', ws('/spaces'))).body).toEqual(before);
  });

  it('conversation titles: create and branch', async () => {
    const before = (await server.api('GET', ws(`/spaces/${spaceId}/conversations`))).body;
    for (const title of UNSAFE_NAMES) {
      await expectRefused(await server.api('POST', ws(`/spaces/${spaceId}/conversations`), { title }), 'title');
      await expectRefused(await server.api('POST', ws(`/conversations/${conversationId}/branches`), { title }), 'title');
    }
    expect((await server.api('GET', ws(`/spaces/${spaceId}/conversations`))).body).toEqual(before);
  });

  it('agent titles (names are slugs already): create and update', async () => {
    const before = (await server.api('GET', ws('/agents'))).body;
    for (const title of UNSAFE_NAMES) {
      await expectRefused(await server.api('POST', ws('/agents'), { name: 'sneaky', title }), 'title');
      await expectRefused(await server.api('PATCH', ws(`/agents/${agentId}`), { title }), 'title');
    }
    await expectRefused(await server.api('POST', ws('/agents'), { name: 'sne\u0000aky' }), 'name');
    expect((await server.api('GET', ws('/agents'))).body).toEqual(before);
  });

  it('property: any printable name with one unsafe character inserted is refused; printable names pass', async () => {
    const unsafe = fc.constantFrom(
      ...[0, 1, 8, 9, 10, 13, 27, 31, 0x7f, 0x80, 0x85, 0x9f, 0x200b, 0x200e, 0x202a, 0x202e, 0x2066, 0x2069, 0xfeff].map((code) => String.fromCodePoint(code)),
    );
    const printable = fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_.éü東京☕'.split('')), minLength: 1, maxLength: 30 }).filter((value) => value.trim() !== '');
    await fc.assert(
      fc.asyncProperty(printable, unsafe, fc.nat(30), async (name, bad, at) => {
        const position = at % (name.length + 1);
        const poisoned = name.slice(0, position) + bad + name.slice(position);
        await expectRefused(await server.api('PATCH', ws(`/spaces/${spaceId}`), { name: poisoned }), 'name');
      }),
      { numRuns: 60 },
    );
    const fine = await server.api('PATCH', ws(`/spaces/${spaceId}`), { name: 'Café ☕ 東京 — room' });
    expect(fine.status).toBe(200);
    expect(fine.body.name).toBe('Café ☕ 東京 — room');
  });
});

describe('repoPath must be the top of an existing git repository', () => {
  it('refuses missing paths, files, plain directories, subdirectories, bare repositories, option-shaped and relative values', async () => {
    const repo = join(scratch, 'repo');
    await mkdir(join(repo, 'sub'), { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    const plain = join(scratch, 'plain');
    await mkdir(plain);
    const file = join(scratch, 'file.txt');
    await writeFile(file, 'not a repo\n');
    const bare = join(scratch, 'bare.git');
    execFileSync('git', ['init', '--quiet', '--bare', bare]);
    const marker = join(scratch, 'injected');
    const before = (await server.api('GET', ws('/spaces'))).body;
    const refused = [
      join(scratch, 'missing'),
      file,
      plain,
      join(repo, 'sub'),
      bare,
      join(bare, 'refs'),
      `--upload-pack=touch ${marker}`,
      '-C/tmp',
      '--help',
      'relative/repo',
      '.',
      `${repo}\u0000/x`,
      `${repo}\n`,
      '',
    ];
    for (const repoPath of refused) {
      const response = await server.api('POST', ws('/spaces'), { name: 'Repo room', repoPath });
      await expectRefused(response, 'repoPath');
    }
    expect(existsSync(marker)).toBe(false);
    expect((await server.api('GET', ws('/spaces'))).body).toEqual(before);
  });

  it('accepts the top of a real repository, also through a symlink', async () => {
    const repo = join(scratch, 'good');
    await mkdir(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    const created = await server.api('POST', ws('/spaces'), { name: 'Good room', repoPath: repo });
    expect(created.status).toBe(201);
    expect(created.body.repoPath).toBe(repo);
    const link = join(scratch, 'good-link');
    await symlink(repo, link);
    expect((await server.api('POST', ws('/spaces'), { name: 'Linked room', repoPath: link })).status).toBe(201);
  });
});

describe('model base URLs are http(s) only', () => {
  it('refuses every other scheme, naming the field, and keeps the settings', async () => {
    const before = (await server.api('GET', ws('/settings'))).body;
    const refused = ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/plain,hi', 'ftp://models.example', 'gopher://x', 'ws://models.example', 'unix:/var/run/x.sock', 'not a url', '//evil.example/v1', ''];
    for (const url of refused) {
      for (const provider of ['anthropic', 'openai-compatible']) {
        await expectRefused(await server.api('PATCH', ws('/settings'), { baseUrls: { [provider]: url }, delegationDepth: 9 }), `baseUrls.${provider}`);
      }
    }
    expect((await server.api('GET', ws('/settings'))).body).toEqual(before);
  });

  it('a non-http base URL stored before the rule existed is ignored on read', async () => {
    const { database } = await server.running.app.workspaces.handle(workspaceId);
    const stored = { baseUrls: { anthropic: 'file:///etc/passwd', openai: 'https://ok.example/v1' } };
    await database.db
      .insertInto('workspace_settings')
      .values({ key: 'settings', value: JSON.stringify(stored) })
      .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: JSON.stringify(stored) }))
      .execute();
    const settings = await server.running.app.settings.get(workspaceId);
    expect(settings.baseUrls).toEqual({ openai: 'https://ok.example/v1' });
    expect((await server.api('GET', ws('/settings'))).body.baseUrls).toEqual({ openai: 'https://ok.example/v1' });
  });

  it('accepts http and https', async () => {
    const response = await server.api('PATCH', ws('/settings'), { baseUrls: { ollama: 'http://127.0.0.1:11434', openai: 'https://api.example.com/v1' } });
    expect(response.status).toBe(200);
    expect(response.body.baseUrls).toMatchObject({ ollama: 'http://127.0.0.1:11434', openai: 'https://api.example.com/v1' });
  });
});
