import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, useRewindFixture } from '../../support/rewind-fixture.js';
import { reply } from '../../support/scripted-model-server.js';

const rewind = useRewindFixture();

const api = (method: string, path: string, body?: unknown) => rewind.fixture.server.api(method, `/api/workspaces/${rewind.fixture.workspaceId}${path}`, body);
const conversationPath = () => `/conversations/${rewind.fixture.conversationId}`;
const worktree = () => rewind.worktree();

async function messages(): Promise<Array<{ id: string; role: string; content: string }>> {
  return (await api('GET', `${conversationPath()}/messages`)).body.messages;
}

async function turn(text: string, ...replies: ReturnType<typeof reply>[]): Promise<void> {
  rewind.fixture.model.script(...replies);
  const runId = await rewind.fixture.send(text);
  expect((await rewind.fixture.waitForRun(runId)).run.state).toBe('completed');
}

describe('rewinding a conversation to before a turn (CTX-3)', () => {
  it('built-in harness in chat: the checkout returns to the turn’s checkpoint, later messages leave the history, both are archived and restored', async () => {
    await turn('write a', reply().tool('write', { path: 'a.txt', content: 'one\n' }), reply().text('wrote a'));
    await turn(
      'write b and change a',
      reply().tool('write', { path: 'b.txt', content: 'two\n' }),
      reply().tool('bash', { command: 'printf "changed\\n" > a.txt && git add a.txt b.txt && git -c user.name=A -c user.email=a@example.com commit -q -m "turn two"' }),
      reply().text('wrote b'),
    );
    expect(readFileSync(join(worktree(), 'a.txt'), 'utf8')).toBe('changed\n');
    const branchAfterTwo = git(worktree(), 'rev-parse', 'HEAD');
    const second = (await messages()).find((message) => message.content === 'write b and change a')!;

    const rewound = await api('POST', `${conversationPath()}/rewind`, { messageId: second.id });
    expect(rewound.status, JSON.stringify(rewound.body)).toBe(200);
    expect(rewound.body.checkpointCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(rewound.body.archivedMessages).toBe(2);
    // The checkout is as the second turn found it: a.txt uncommitted as the first turn left it, no b.txt, the commit undone.
    expect(readFileSync(join(worktree(), 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(worktree(), 'b.txt'))).toBe(false);
    expect(git(worktree(), 'log', '--format=%s', '-1')).toBe('readme');
    // Archived, not deleted: the ref keeps the checkout as it was, the commit of turn two included.
    expect(git(worktree(), 'rev-parse', `${rewound.body.archiveRef}^`)).toBe(branchAfterTwo);
    expect(git(worktree(), 'show', `${rewound.body.archiveRef}:b.txt`)).toBe('two');
    const after = await messages();
    expect(after.map((message) => message.content)).not.toContain('write b and change a');
    expect(after.map((message) => message.content)).not.toContain('wrote b');
    expect(after.at(-1)!.role).toBe('system');
    expect(after.at(-1)!.content).toMatch(/^Rewound to before "write b and change a": 2 messages archived/);

    // The next turn's history has the first turn and not the second.
    rewind.fixture.model.reset();
    await turn('what now?', reply().text('fresh start'));
    const [request] = await rewind.fixture.model.waitForRequests(1);
    expect(request!.allText).toContain('write a');
    expect(request!.allText).not.toContain('write b and change a');
    expect(request!.allText).not.toContain('wrote b');

    // Restored: the messages come back and the checkout is as it was before the rewind.
    const restored = await api('POST', `${conversationPath()}/rewinds/${rewound.body.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(readFileSync(join(worktree(), 'b.txt'), 'utf8')).toBe('two\n');
    expect(git(worktree(), 'rev-parse', 'HEAD')).toBe(branchAfterTwo);
    expect((await messages()).map((message) => message.content)).toContain('write b and change a');
    const again = await api('POST', `${conversationPath()}/rewinds/${rewound.body.id}/restore`);
    expect(again.status).toBe(409);
    const listed = (await api('GET', `${conversationPath()}/rewinds`)).body.rewinds;
    expect(listed.map((rewind: { id: string; restoredAt: string | null }) => [rewind.id, rewind.restoredAt !== null])).toEqual([[rewound.body.id, true]]);
  }, 120_000);

  it('refuses a message of another conversation (404) and any rewind while a run is active (409), changing nothing', async () => {
    const other = await api('POST', `/spaces/${rewind.fixture.spaceId}/conversations`, { title: 'Other' });
    rewind.fixture.model.script(reply().text('elsewhere'));
    const otherRun = await api('POST', `/conversations/${other.body.id}/messages`, { text: 'in the other conversation' });
    await rewind.fixture.waitForRun(otherRun.body.run.id);
    const foreign = (await api('GET', `/conversations/${other.body.id}/messages`)).body.messages[0];
    const before = await messages();
    const notHere = await api('POST', `${conversationPath()}/rewind`, { messageId: foreign.id });
    expect(notHere.status).toBe(404);
    expect(notHere.body.error.field).toBe('messageId');

    rewind.fixture.model.script(reply().hang());
    const runId = await rewind.fixture.send('this one hangs');
    await rewind.fixture.model.waitForRequests(rewind.fixture.model.requests.length + 1);
    const busy = await api('POST', `${conversationPath()}/rewind`, { messageId: before[0]!.id });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toMatch(/is active in this conversation/);
    await api('POST', `/runs/${runId}/cancel`);
    await rewind.fixture.waitForRun(runId);
    const notMissing = (await messages()).map((message) => message.id);
    for (const message of before) expect(notMissing).toContain(message.id);
  }, 120_000);

  it('the CLI rewinds, lists and restores (rewind to / list / restore)', async () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--url', rewind.fixture.server.url, '--token', rewind.fixture.server.token, 'rewind', ...args, '--workspace', rewind.fixture.workspaceId], { encoding: 'utf8' }).then(
        (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
        (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
      );
    const target = (await messages()).find((message) => message.content === 'what now?')!;
    const rewound = await cli('to', rewind.fixture.conversationId, target.id);
    expect(rewound.code, rewound.stderr).toBe(0);
    const rewindId = /^rewound: (rw_\S+) {2}before /.exec(rewound.stdout)![1]!;
    expect((await messages()).map((message) => message.id)).not.toContain(target.id);
    const listed = await cli('list', rewind.fixture.conversationId);
    expect(listed.stdout).toContain(`${rewindId}  before ${target.id}`);
    const restored = await cli('restore', rewind.fixture.conversationId, rewindId);
    expect(restored.code, restored.stderr).toBe(0);
    expect((await messages()).map((message) => message.id)).toContain(target.id);
    const twice = await cli('restore', rewind.fixture.conversationId, rewindId);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already restored/);
  }, 120_000);
});
