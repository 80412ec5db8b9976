import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeCommandWhitespace } from '../../src/core/shell/command-whitespace.js';
import { fingerprintAction } from '../../src/core/policy/remembered-choice.js';
import { conversationWorktree, nextPendingApproval, workspaceApi } from '../support/harness-approvals.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * POL-3: inside double quotes, `$(…)`, `${…}` and backquotes open a quoting context of their own, so
 * in `rm -f "$(echo "draft  copy.txt")"` the inner quotes do not end the outer string and the two
 * spaces belong to a file name. The normaliser ended the outer string at the inner `"` and collapsed
 * the spaces as if they separated words: a choice remembered for `"draft copy.txt"` also deleted
 * `"draft  copy.txt"` unasked. Whatever such a construct holds is now kept as written.
 */

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const worktree = () => conversationWorktree(fixture);
const api = (method: string, path: string, body?: unknown) => workspaceApi(fixture, method, path, body);

describe('the normaliser follows quoting contexts nested in double quotes (POL-3)', () => {
  /** Pairs bash runs with different arguments (checked with bash 5.2): each must key a remembered choice differently. */
  const distinct: Array<[string, string]> = [
    ['rm -f "$(echo "draft  copy.txt")"', 'rm -f "$(echo "draft copy.txt")"'],
    ['rm -f "${NAME:-"draft  copy.txt"}"', 'rm -f "${NAME:-"draft copy.txt"}"'],
    ['rm -f "`echo "draft  copy.txt"`"', 'rm -f "`echo "draft copy.txt"`"'],
    ['rm -f "$(echo "$(echo "draft  copy.txt")")"', 'rm -f "$(echo "$(echo "draft copy.txt")")"'],
    ['rm -f "${A:-$(echo "x  y")}"', 'rm -f "${A:-$(echo "x y")}"'],
  ];

  it.each(distinct)('POL-3: %s and %s differ', (one, other) => {
    expect(normalizeCommandWhitespace(one)).not.toBe(normalizeCommandWhitespace(other));
    expect(fingerprintAction(['fileDelete'], one)).not.toBe(fingerprintAction(['fileDelete'], other));
  });

  it('POL-3: layout outside every quote still normalises alike', () => {
    expect(normalizeCommandWhitespace('rm   -f  "$(echo "a  b")"   x')).toBe('rm -f "$(echo "a  b")" x');
    expect(normalizeCommandWhitespace('echo  $(printf  x)')).toBe('echo $(printf x)');
  });
});

describe('a remembered choice does not cover a file named inside a nested quote (POL-3)', () => {
  it('POL-3: a choice remembered for rm -f "$(echo "draft copy.txt")" does not delete "draft  copy.txt"', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(
      reply().tool('bash', { command: 'rm -f "$(echo "draft copy.txt")"' }),
      reply().text('one'),
      reply().tool('bash', { command: 'rm -f "$(echo "draft  copy.txt")"' }),
      reply().text('two'),
    );
    const first = await fixture.send('delete the draft');
    const approval = await nextPendingApproval(fixture, new Set());
    writeFileSync(join(worktree(), 'draft copy.txt'), 'one space');
    writeFileSync(join(worktree(), 'draft  copy.txt'), 'two spaces');
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve', remember: true })).status).toBe(200);
    await fixture.waitForRun(first);
    expect(existsSync(join(worktree(), 'draft copy.txt'))).toBe(false);

    const second = await fixture.send('delete the other draft');
    const again = await nextPendingApproval(fixture, new Set([approval.id]));
    expect(again.request).toMatchObject({ toolName: 'bash', summary: 'rm -f "$(echo "draft  copy.txt")"' });
    expect((await api('POST', `/approvals/${again.id}/decision`, { decision: 'reject' })).status).toBe(200);
    const detail = await fixture.waitForRun(second);
    expect(detail.toolCalls[0]).toMatchObject({ executed: false });
    expect(existsSync(join(worktree(), 'draft  copy.txt'))).toBe(true);
  });
});
