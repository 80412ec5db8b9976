import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs git in a test repository (the test's own repo, a trusted place). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

export const MATH_MAIN = ['// Small arithmetic helpers.', 'export function add(a, b) {', '  return a + b;', '}', '', 'export function double(a) {', '  return add(a, a);', '}', ''].join('\n');

/** The seeded bug: `add` subtracts (line 3 of src/math.js on the `feature` branch). */
export const MATH_BUGGY = MATH_MAIN.replace('return a + b;', 'return a - b;') + ['export function triple(a) {', '  return add(add(a, a), a);', '}', ''].join('\n');

/**
 * A real repository with `main` and a `feature` branch carrying a seeded bug in src/math.js plus a
 * REVIEW.md; `check.sh` is what a gate runs (it fails while the bug is there).
 */
export async function makeReviewRepo(): Promise<{ repo: string; featureSha: string; mainSha: string }> {
  const repo = await mkdtemp(join(tmpdir(), 'cc-review-repo-'));
  git(repo, 'init', '-q', '-b', 'main');
  await mkdir(join(repo, 'src'));
  await writeFile(join(repo, 'src', 'math.js'), MATH_MAIN);
  await writeFile(join(repo, 'README.md'), '# demo\n');
  await writeFile(join(repo, 'check.sh'), '#!/bin/sh\ngrep -q "return a + b;" src/math.js || { echo "add() does not add"; exit 1; }\necho ok\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'initial');
  const mainSha = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(repo, 'src', 'math.js'), MATH_BUGGY);
  await writeFile(join(repo, 'REVIEW.md'), 'Arithmetic must stay exact. Flag any change to add().\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'feature: triple()');
  const featureSha = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', 'main');
  return { repo, featureSha, mainSha };
}
