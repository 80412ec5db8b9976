/**
 * SKL-4, HAR-7, SEC-3 over real HTTP on the built-in harness with real git repositories in temp dirs:
 * the checkouts of a space's linked repositories (`repos/<name>/` of the conversation's worktree) are
 * covered like the worktree itself — after every run each one's branch is brought into its own
 * repository as `cc/<conversation>`, and removing the conversation's checkout first brings each
 * linked checkout's branch over and checkpoints its uncommitted work into its own repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { reply } from '../../support/scripted-reply.js';
import { makeSkillSource } from '../../support/skill-source-fixture.js';

let fixture: HarnessFixture;
let alpha: Awaited<ReturnType<typeof makeSkillSource>>;
let beta: Awaited<ReturnType<typeof makeSkillSource>>;

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const worktree = () => join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
const branchIn = (repo: string) => execFileSync('git', ['for-each-ref', '--format=%(objectname)', `refs/heads/cc/${fixture.conversationId}`], { cwd: repo, encoding: 'utf8' }).trim();

beforeAll(async () => {
  alpha = await makeSkillSource({ 'README.md': '# alpha\n' });
  beta = await makeSkillSource({ 'README.md': '# beta\n' });
  fixture = await startHarnessFixture();
  for (const [name, repo] of [['alpha', alpha], ['beta', beta]] as const) {
    expect((await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/spaces/${fixture.spaceId}/repositories`, { name, repoPath: repo.dir })).status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
  for (const repo of [alpha, beta]) if (repo) await rm(repo.dir, { recursive: true, force: true });
});

async function turn(): Promise<any> {
  fixture.model.script(reply().text('ok'));
  return fixture.waitForRun(await fixture.send('@engineer go on'));
}

describe('linked repositories’ checkouts in the per-run sync and the checkpoints (SKL-4, HAR-7)', () => {
  it('after a run, a commit made in repos/alpha/ is alpha’s cc/<conversation>; each repository gets its own checkout_synced event', async () => {
    expect((await turn()).run.state).toBe('completed');
    const checkout = join(worktree(), 'repos', 'alpha');
    await writeFile(join(checkout, 'feature.txt'), 'feature\n');
    git(checkout, 'add', 'feature.txt');
    git(checkout, '-c', 'user.name=Agent', '-c', 'user.email=agent@example.invalid', 'commit', '-q', '-m', 'agent work in alpha');
    const made = git(checkout, 'rev-parse', 'HEAD');
    expect(branchIn(alpha.dir)).not.toBe(made);

    const detail = await turn();
    expect(detail.run.state).toBe('completed');
    expect(branchIn(alpha.dir)).toBe(made);
    expect(git(alpha.dir, 'show', `cc/${fixture.conversationId}:feature.txt`)).toBe('feature');
    // Beta's branch is there too, at its base; neither repository's other refs moved.
    expect(branchIn(beta.dir)).toBe(beta.head());
    expect(git(alpha.dir, 'rev-parse', 'main')).toBe(alpha.head());
    const synced = detail.events.filter((event: any) => event.type === 'checkout_synced').map((event: any) => event.data);
    expect(synced).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ repository: 'alpha', synced: true, ref: `refs/heads/cc/${fixture.conversationId}`, sha: made }),
        expect.objectContaining({ repository: 'beta', synced: true, sha: beta.head() }),
      ]),
    );
  });

  it('removing the conversation’s checkout checkpoints uncommitted work of repos/beta/ into beta, and brings alpha’s branch over, before anything is deleted', async () => {
    const checkout = join(worktree(), 'repos', 'beta');
    await writeFile(join(checkout, 'draft.txt'), 'unsaved draft\n');
    const removed = await fixture.server.running.app.executor.checkouts.remove(fixture.workspaceId, fixture.conversationId, null);
    expect(removed.removed).toBe(true);
    expect(existsSync(worktree())).toBe(false);
    expect(removed.linked.map((entry: { repository: string }) => entry.repository).sort()).toEqual(['alpha', 'beta']);
    const betaRemoval = removed.linked.find((entry: { repository: string }) => entry.repository === 'beta')!;
    expect(betaRemoval.refused).toBeNull();
    expect(betaRemoval.checkpointRef).toMatch(new RegExp(`^refs/cc-checkpoints/beta/`));
    expect(git(beta.dir, 'show', `${betaRemoval.checkpointRef}:draft.txt`)).toBe('unsaved draft');
    // Alpha was clean: no checkpoint, its branch still the agent's commit.
    expect(removed.linked.find((entry: { repository: string }) => entry.repository === 'alpha')!.checkpointRef).toBeNull();
    expect(git(alpha.dir, 'show', `cc/${fixture.conversationId}:feature.txt`)).toBe('feature');
    // The next run makes the checkouts again, on the synced branches.
    expect((await turn()).run.state).toBe('completed');
    expect(git(join(worktree(), 'repos', 'alpha'), 'rev-parse', 'HEAD')).toBe(branchIn(alpha.dir));
  });
});
