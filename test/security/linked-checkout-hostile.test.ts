/**
 * SKL-4, SEC-3: the agent owns its worktree, `repos/` included. A linked repository's checkout that
 * the agent replaced — `repos/<name>` made a link to a repository outside, `repos/<name>/.git` made a
 * `gitdir:` file naming another repository, or `repos` itself made a link — is refused by the per-run
 * sync, by unlinking the repository and by removing the conversation's checkout: git never runs
 * through it, nothing outside is read into a linked repository, and nothing outside is written,
 * checkpointed or deleted. Real server over HTTP, real git repositories in temp dirs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { makeSkillSource } from '../support/skill-source-fixture.js';

type Repo = Awaited<ReturnType<typeof makeSkillSource>>;
let fixture: HarnessFixture | null = null;
const cleanup: string[] = [];

afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});

const refsOf = (repo: string) => execFileSync('git', ['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: repo, encoding: 'utf8' });
const statusOf = (repo: string) => execFileSync('git', ['status', '--porcelain=v1', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' });

/** A space linking alpha and beta, checked out by one finished run; a victim repository outside with a secret branch. */
async function scenario(): Promise<{ f: HarnessFixture; alpha: Repo; beta: Repo; victim: Repo; worktree: string }> {
  const alpha = await makeSkillSource({ 'README.md': '# alpha\n' });
  const beta = await makeSkillSource({ 'README.md': '# beta\n' });
  const victim = await makeSkillSource({ 'secret.txt': 'victim data\n' });
  cleanup.push(alpha.dir, beta.dir, victim.dir);
  execFileSync('git', ['branch', `victim-only`], { cwd: victim.dir });
  const f = (fixture = await startHarnessFixture());
  for (const [name, repo] of [['alpha', alpha], ['beta', beta]] as const) {
    expect((await f.server.api('POST', `/api/workspaces/${f.workspaceId}/spaces/${f.spaceId}/repositories`, { name, repoPath: repo.dir })).status).toBe(201);
  }
  f.model.script(reply().text('ok'));
  expect((await f.waitForRun(await f.send('@engineer start'))).run.state).toBe('completed');
  const worktree = join(f.workspaceDir, 'worktrees', f.conversationId);
  expect(existsSync(join(worktree, 'repos', 'alpha', '.git'))).toBe(true);
  return { f, alpha, beta, victim, worktree };
}

/** The victim as it must stay: its refs, its working tree, its file. */
function victimState(victim: Repo): string {
  return `${refsOf(victim.dir)}\n${statusOf(victim.dir)}\n${readFileSync(join(victim.dir, 'secret.txt'), 'utf8')}`;
}

describe('hostile repos/<name> in a conversation’s worktree (SKL-4, SEC-3)', { timeout: 120_000 }, () => {
  it('repos/alpha a link to a repository outside and repos/beta/.git a gitdir file naming it: the sync refuses both, naming why; nothing moves anywhere', async () => {
    const { f, alpha, beta, victim, worktree } = await scenario();
    const before = { alpha: refsOf(alpha.dir), beta: refsOf(beta.dir), victim: victimState(victim) };
    await rm(join(worktree, 'repos', 'alpha'), { recursive: true, force: true });
    await symlink(victim.dir, join(worktree, 'repos', 'alpha'));
    await rm(join(worktree, 'repos', 'beta', '.git'), { recursive: true, force: true });
    await writeFile(join(worktree, 'repos', 'beta', '.git'), `gitdir: ${join(victim.dir, '.git')}\n`);
    await writeFile(join(worktree, 'repos', 'beta', 'planted.txt'), 'planted\n');

    f.model.script(reply().text('ok'));
    const detail = await f.waitForRun(await f.send('@engineer go on'));
    expect(detail.run.state).toBe('completed');
    const synced = detail.events.filter((event: any) => event.type === 'checkout_synced').map((event: any) => event.data);
    expect(synced).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ repository: 'alpha', synced: false, reason: expect.stringMatching(/repos\/alpha is a symbolic link; the server does not check out through it/) }),
        expect.objectContaining({ repository: 'beta', synced: false, reason: expect.stringMatching(/repos\/beta\/\.git is not a directory; the server does not run git through it/) }),
      ]),
    );
    // The victim's branch never became a linked repository's cc/<conversation>; nothing of the victim changed.
    expect(refsOf(alpha.dir)).toBe(before.alpha);
    expect(refsOf(beta.dir)).toBe(before.beta);
    expect(refsOf(alpha.dir)).not.toContain('victim-only');
    expect(victimState(victim)).toBe(before.victim);
  });

  it('unlinking a repository whose checkout is a link out deletes nothing outside; removing the conversation’s checkout refuses the linked ones the same way', async () => {
    const { f, beta, victim, worktree } = await scenario();
    const before = { beta: refsOf(beta.dir), victim: victimState(victim) };
    await rm(join(worktree, 'repos', 'alpha'), { recursive: true, force: true });
    await symlink(victim.dir, join(worktree, 'repos', 'alpha'));
    // `repos` itself is then made a link to a folder outside holding a clone named beta.
    const outside = await mkdtemp(join(tmpdir(), 'cc-outside-repos-'));
    cleanup.push(outside);
    execFileSync('git', ['clone', '-q', victim.dir, join(outside, 'beta')]);
    const cloneBefore = `${refsOf(join(outside, 'beta'))}${statusOf(join(outside, 'beta'))}`;

    const unlinked = await f.server.api('DELETE', `/api/workspaces/${f.workspaceId}/spaces/${f.spaceId}/repositories/alpha`);
    expect(unlinked.status).toBeLessThan(300);
    expect(existsSync(join(victim.dir, 'secret.txt'))).toBe(true);
    expect(victimState(victim)).toBe(before.victim);

    await rm(join(worktree, 'repos'), { recursive: true, force: true });
    await symlink(outside, join(worktree, 'repos'));
    const removed = await f.server.running.app.executor.checkouts.remove(f.workspaceId, f.conversationId, null);
    const refusals = removed.linked.filter((entry: { refused: string | null }) => entry.refused !== null);
    expect(refusals.map((entry: { repository: string }) => entry.repository).sort()).toEqual(['alpha', 'beta']);
    expect(refusals[0]!.refused).toMatch(/repos is a symbolic link/);
    // The worktree went; the folder its `repos` link named, and the clone in it, are untouched.
    expect(existsSync(worktree)).toBe(false);
    expect(existsSync(join(outside, 'beta', 'secret.txt'))).toBe(true);
    expect(`${refsOf(join(outside, 'beta'))}${statusOf(join(outside, 'beta'))}`).toBe(cloneBefore);
    expect(refsOf(beta.dir)).toBe(before.beta);
    expect(victimState(victim)).toBe(before.victim);
  });
});
