import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, useRewindFixture } from '../../support/rewind-fixture.js';
import { reply } from '../../support/scripted-model-server.js';

/**
 * CTX-3 on the built-in harness: a turn's checkpoint is taken before its first call that may change
 * the checkout, never for a turn that only reads; a rewind to before a read-only turn uses the
 * checkpoint of the first later turn that wrote, else leaves the checkout as it is.
 */

const rewind = useRewindFixture();

const api = (method: string, path: string, body?: unknown) => rewind.fixture.server.api(method, `/api/workspaces/${rewind.fixture.workspaceId}${path}`, body);
const conversationPath = () => `/conversations/${rewind.fixture.conversationId}`;
const worktree = () => rewind.worktree();
const checkpointRef = (runId: string) => `refs/cc-turns/${rewind.fixture.conversationId}/${runId}`;
const refsOf = (runId: string) => git(worktree(), 'for-each-ref', '--format=%(refname)', checkpointRef(runId));

/** Runs one turn to completion; returns its run id and its run log's event types in order. */
async function turn(text: string, ...replies: ReturnType<typeof reply>[]): Promise<{ runId: string; events: string[] }> {
  rewind.fixture.model.script(...replies);
  const runId = await rewind.fixture.send(text);
  const detail = await rewind.fixture.waitForRun(runId);
  expect(detail.run.state).toBe('completed');
  return { runId, events: detail.events.map((event: { type: string }) => event.type) };
}

async function messageNamed(content: string): Promise<{ id: string }> {
  const listed: Array<{ id: string; content: string }> = (await api('GET', `${conversationPath()}/messages`)).body.messages;
  return listed.find((message) => message.content === content)!;
}

describe('built-in turn checkpoints are taken before the first change (CTX-3)', () => {
  it('a turn that only reads makes no checkpoint; a rewind to before it with no later write leaves the checkout and moves only the history', async () => {
    const reading = await turn(
      'only look around',
      reply().tool('bash', { command: 'true' }),
      reply().tool('bash', { command: 'ls && cat README.md' }),
      reply().tool('read', { path: 'README.md' }),
      reply().text('looked'),
    );
    expect(refsOf(reading.runId)).toBe('');
    expect(reading.events).not.toContain('turn_checkpoint');

    const rewound = await api('POST', `${conversationPath()}/rewind`, { messageId: (await messageNamed('only look around')).id });
    expect(rewound.status, JSON.stringify(rewound.body)).toBe(200);
    expect(rewound.body.checkpointCommit).toBeNull();
    expect(rewound.body.archivedMessages).toBe(2);
    const listed: Array<{ role: string; content: string }> = (await api('GET', `${conversationPath()}/messages`)).body.messages;
    expect(listed.at(-1)!.content).toMatch(/No turn since changed the checkout/);
    expect(git(worktree(), 'status', '--porcelain')).toBe('');
  }, 120_000);

  it('a writing turn checkpoints after its reads and before its first write; a rewind to before an earlier read-only turn returns to that checkpoint', async () => {
    await turn('read first', reply().tool('bash', { command: 'cat README.md' }), reply().text('read'));
    const writing = await turn(
      'then write',
      reply().tool('bash', { command: 'true' }),
      reply().tool('write', { path: 'c.txt', content: 'three\n' }),
      reply().tool('bash', { command: 'printf "four\\n" > d.txt' }),
      reply().text('wrote'),
    );
    expect(existsSync(join(worktree(), 'c.txt'))).toBe(true);
    // One checkpoint, between the read-only call and the write (its tool_call_end is the write's).
    expect(writing.events.filter((type) => type === 'turn_checkpoint')).toHaveLength(1);
    const checkpointAt = writing.events.indexOf('turn_checkpoint');
    const callEnds = writing.events.flatMap((type, index) => (type === 'tool_call_end' ? [index] : []));
    expect(callEnds).toHaveLength(3);
    expect(checkpointAt).toBeGreaterThan(callEnds[0]!);
    expect(checkpointAt).toBeLessThan(callEnds[1]!);
    const checkpoint = git(worktree(), 'rev-parse', checkpointRef(writing.runId));
    const files = git(worktree(), 'ls-tree', '--name-only', checkpoint).split('\n');
    expect(files).toContain('README.md');
    expect(files).not.toContain('c.txt');
    expect(files).not.toContain('d.txt');

    // Before "read first" the checkout was as the writing turn's checkpoint has it: no write happened in between.
    const rewound = await api('POST', `${conversationPath()}/rewind`, { messageId: (await messageNamed('read first')).id });
    expect(rewound.status, JSON.stringify(rewound.body)).toBe(200);
    expect(rewound.body.checkpointCommit).toBe(checkpoint);
    expect(existsSync(join(worktree(), 'c.txt'))).toBe(false);
    expect(existsSync(join(worktree(), 'd.txt'))).toBe(false);

    const restored = await api('POST', `${conversationPath()}/rewinds/${rewound.body.id}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(existsSync(join(worktree(), 'c.txt'))).toBe(true);
    expect(existsSync(join(worktree(), 'd.txt'))).toBe(true);
  }, 120_000);
});
