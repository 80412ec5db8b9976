import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, startPublishFixture, type PublishFixture } from '../../support/publish-fixture.js';

let setup: PublishFixture;
const conversation = () => `/conversations/${setup.fixture.conversationId}`;
const merge = (body: Record<string, unknown>) => setup.api('POST', `${conversation()}/merge`, body);
const tip = (branch: string) => git(setup.repoPath, 'rev-parse', `refs/heads/${branch}`);

/** A branch of the user's repository made from the conversation's base, with one commit changing `file`, not checked out. */
function branchWithCommit(name: string, file: string, content: string): string {
  git(setup.repoPath, 'branch', name, setup.baseSha);
  const scratch = join(setup.repoPath, '..', `wt-${name}`);
  git(setup.repoPath, 'worktree', 'add', '-q', scratch, name);
  writeFileSync(join(scratch, file), content);
  git(scratch, 'commit', '-q', '-am', `change ${file} on ${name}`);
  git(setup.repoPath, 'worktree', 'remove', scratch);
  return tip(name);
}

beforeAll(async () => {
  setup = await startPublishFixture();
  // The agent adds a file and changes line two of app.txt.
  await setup.commitTurn('add a feature', { 'feature.txt': 'feature\n', 'app.txt': 'one\nTWO\nthree\n' });
}, 180_000);

afterAll(async () => {
  await setup?.dispose();
});

describe("merging a conversation's branch into a local branch (CHG-2)", () => {
  it('fast-forwards a branch that has not moved since the conversation began, and records where the work went', async () => {
    git(setup.repoPath, 'branch', 'release', setup.baseSha);
    const merged = await merge({ into: 'release', ffOnly: true, expectedSha: setup.baseSha });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body).toMatchObject({ kind: 'fastForward', targetBranch: 'release', previousSha: setup.baseSha, mergedSha: setup.branchSha() });
    expect(tip('release')).toBe(setup.branchSha());
    const where = (await setup.api('GET', `${conversation()}/destinations`)).body;
    expect(where.merges.map((entry: any) => [entry.targetBranch, entry.kind, entry.mergedSha])).toEqual([['release', 'fastForward', setup.branchSha()]]);
    // Nothing more to merge the second time.
    const again = await merge({ into: 'release' });
    expect(again.status).toBe(409);
  }, 60_000);

  it('makes a merge commit into the checked-out, clean branch and brings its working tree forward', async () => {
    const mainBefore = branchWithCommit('moved-main', 'README.md', 'changed on the user side\n');
    git(setup.repoPath, 'checkout', '-q', 'moved-main');
    try {
      const refusedFf = await merge({ into: 'moved-main', ffOnly: true });
      expect(refusedFf.status).toBe(409);
      expect(refusedFf.body.error.field).toBe('ffOnly');
      expect(tip('moved-main')).toBe(mainBefore);
      const merged = await merge({ into: 'moved-main', expectedSha: mainBefore });
      expect(merged.status, JSON.stringify(merged.body)).toBe(200);
      expect(merged.body.kind).toBe('mergeCommit');
      expect(tip('moved-main')).toBe(merged.body.mergedSha);
      expect(git(setup.repoPath, 'rev-list', '--parents', '-n', '1', 'moved-main').split(' ').slice(1)).toEqual([mainBefore, setup.branchSha()]);
      // The checked-out tree followed, and is clean.
      expect(readFileSync(join(setup.repoPath, 'feature.txt'), 'utf8')).toBe('feature\n');
      expect(readFileSync(join(setup.repoPath, 'README.md'), 'utf8')).toBe('changed on the user side\n');
      expect(git(setup.repoPath, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    } finally {
      git(setup.repoPath, 'checkout', '-q', 'main');
    }
  }, 60_000);

  it('refuses a merge that conflicts, listing the files and changing nothing', async () => {
    const before = branchWithCommit('conflicting', 'app.txt', 'one\nzwei\nthree\n');
    const refused = await merge({ into: 'conflicting' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.field).toBe('into');
    expect(refused.body.error.message).toContain('1 conflicting file(s): app.txt');
    expect(tip('conflicting')).toBe(before);
  }, 60_000);

  it('refuses a target that moved since the operator looked', async () => {
    const seen = setup.baseSha;
    const moved = branchWithCommit('moving', 'README.md', 'someone else\n');
    const refused = await merge({ into: 'moving', expectedSha: seen });
    expect(refused.status).toBe(409);
    expect(refused.body.error.field).toBe('expectedSha');
    expect(tip('moving')).toBe(moved);
  }, 60_000);

  it('never touches a checked-out working tree with uncommitted changes', async () => {
    git(setup.repoPath, 'branch', 'dirty', setup.baseSha);
    git(setup.repoPath, 'checkout', '-q', 'dirty');
    writeFileSync(join(setup.repoPath, 'README.md'), 'work in progress\n');
    try {
      const refused = await merge({ into: 'dirty' });
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.error.message).toContain('uncommitted changes to 1 tracked file(s) (README.md)');
      expect(tip('dirty')).toBe(setup.baseSha);
      expect(readFileSync(join(setup.repoPath, 'README.md'), 'utf8')).toBe('work in progress\n');
    } finally {
      git(setup.repoPath, 'checkout', '-q', '--', 'README.md');
      git(setup.repoPath, 'checkout', '-q', 'main');
    }
  }, 60_000);

  it('refuses hostile or unknown branch names with 400 or 409 naming the field', async () => {
    const mainBefore = tip('main');
    for (const into of ['--upload-pack=touch /tmp/cc-pwned', '-f', 'main;id', 'a..b', 'x y']) {
      const refused = await merge({ into });
      expect(refused.status, into).toBe(400);
      expect(refused.body.error.field).toBe('into');
    }
    const own = await merge({ into: `cc/${setup.fixture.conversationId}` });
    expect(own.status).toBe(400);
    const missing = await merge({ into: 'no-such-branch' });
    expect(missing.status).toBe(409);
    expect(missing.body.error.field).toBe('into');
    const badSha = await merge({ into: 'main', expectedSha: 'HEAD~1' });
    expect(badSha.status).toBe(400);
    expect(tip('main')).toBe(mainBefore);
  }, 60_000);
});
