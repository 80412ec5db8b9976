import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeCommandWhitespace } from '../../src/core/shell/command-whitespace.js';
import { fingerprintAction } from '../../src/core/policy/remembered-choice.js';
import { conversationWorktree, nextPendingApproval, workspaceApi } from '../support/harness-approvals.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * POL-3: "remember this choice" is keyed on the action's fingerprint. The fingerprint normalises
 * the command's layout, but whitespace inside quotes is part of a word: `rm -f "draft copy.txt"` and
 * `rm -f "draft  copy.txt"` delete two different files, so an approval remembered for one must not
 * let the other through. Collapsing every run of whitespace made them share a remembered choice.
 */

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

const worktree = () => conversationWorktree(fixture);
const api = (method: string, path: string, body?: unknown) => workspaceApi(fixture, method, path, body);

describe('remembered choices keep quoted whitespace (POL-3)', () => {
  it('POL-3: a choice remembered for rm -f "draft copy.txt" does not allow rm -f "draft  copy.txt"; unquoted spacing still matches', async () => {
    fixture = await startHarnessFixture();
    fixture.model.script(
      reply().tool('bash', { command: 'rm -f "draft copy.txt"' }),
      reply().text('one'),
      reply().tool('bash', { command: 'rm -f "draft  copy.txt"' }),
      reply().text('two'),
      reply().tool('bash', { command: 'rm   -f    "draft copy.txt"' }),
      reply().text('three'),
    );
    // The first run creates the worktree; the files go in once it exists.
    const first = await fixture.send('delete the draft');
    const approval = await nextPendingApproval(fixture, new Set());
    expect(approval.request).toMatchObject({ toolName: 'bash', summary: 'rm -f "draft copy.txt"' });
    writeFileSync(join(worktree(), 'draft copy.txt'), 'one space');
    writeFileSync(join(worktree(), 'draft  copy.txt'), 'two spaces');
    expect((await api('POST', `/approvals/${approval.id}/decision`, { decision: 'approve', remember: true })).status).toBe(200);
    await fixture.waitForRun(first);
    expect(existsSync(join(worktree(), 'draft copy.txt'))).toBe(false);

    // Another file: the remembered choice does not apply, the operator is asked again.
    const second = await fixture.send('delete the other draft');
    const again = await nextPendingApproval(fixture, new Set([approval.id]));
    expect(again.request).toMatchObject({ toolName: 'bash', summary: 'rm -f "draft  copy.txt"' });
    expect(existsSync(join(worktree(), 'draft  copy.txt'))).toBe(true);
    expect((await api('POST', `/approvals/${again.id}/decision`, { decision: 'reject' })).status).toBe(200);
    const secondDetail = await fixture.waitForRun(second);
    expect(secondDetail.toolCalls[0]).toMatchObject({ executed: false });
    expect(existsSync(join(worktree(), 'draft  copy.txt'))).toBe(true);

    // The same file with other spacing between words is the same action: remembered, not asked.
    writeFileSync(join(worktree(), 'draft copy.txt'), 'back again');
    const third = await fixture.send('delete the draft again');
    const thirdDetail = await fixture.waitForRun(third);
    expect(thirdDetail.toolCalls[0]).toMatchObject({ decision: 'allow', decidedBy: { scope: 'workspace' }, executed: true });
    expect(existsSync(join(worktree(), 'draft copy.txt'))).toBe(false);
    expect((await api('GET', '/approvals')).body.approvals).toHaveLength(2);
  });
});

describe('the normaliser reads quotes and blanks as bash does (POL-3)', () => {
  /** Pairs bash runs with different arguments: each must normalise (and key a remembered choice) differently. */
  const distinct: Array<[string, string]> = [
    // `\$` is a literal dollar sign: the quote after it is a plain single quote, ended by the next `'`.
    ["printf '%s|' \\$'a\\' 'b  c'", "printf '%s|' \\$'a\\' 'b c'"],
    // `$$` is the process id: the quote after it is plain too.
    ["printf '%s|' $$'a\\' 'b  c'", "printf '%s|' $$'a\\' 'b c'"],
    // A no-break space, a line separator and a carriage return are word characters to bash.
    ['rm x\u00A0y', 'rm x y'],
    ['rm x\u2028y', 'rm x y'],
    ['rm x\ry', 'rm x y'],
    ['rm x\u00A0', 'rm x'],
    ['rm \u00A0x', 'rm x'],
  ];

  it('keeps apart what bash runs differently', () => {
    for (const [one, other] of distinct) {
      expect(normalizeCommandWhitespace(one), JSON.stringify([one, other])).not.toBe(normalizeCommandWhitespace(other));
      expect(fingerprintAction(['fileDelete'], one), JSON.stringify([one, other])).not.toBe(fingerprintAction(['fileDelete'], other));
    }
  });

  it('still merges what bash runs alike, an unescaped ANSI-C quote included', () => {
    expect(normalizeCommandWhitespace("printf '%s|' $'a\\' 'b  c'")).toBe(normalizeCommandWhitespace("printf   '%s|'\t$'a\\' 'b  c'"));
    // `$'a\' '` is one ANSI-C word (the `\'` is escaped): the spacing after it is outside quotes.
    expect(normalizeCommandWhitespace("printf '%s|' $'a\\' 'b  c'")).toBe("printf '%s|' $'a\\' 'b c'");
    expect(normalizeCommandWhitespace("printf '%s|' $$$'a\\' 'b  c'")).toBe("printf '%s|' $$$'a\\' 'b c'");
    expect(normalizeCommandWhitespace('  rm   x \t\n\t y  ')).toBe('rm x\ny');
    expect(normalizeCommandWhitespace('rm x\u00A0y')).toBe('rm x\u00A0y');
  });
});
