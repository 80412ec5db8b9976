import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchNameProblem, cloneUrlProblem, parsePullRequestUrl } from '../../src/core/review/forge-pull-request.js';
import type { FakeGitHub } from '../support/fake-github.js';
import { startForgeReviewWorkspace, type ForgeReviewWorkspace } from '../support/forge-review-workspace.js';

const GITHUB = 'https://github.com';
const PR = { owner: 'acme', repo: 'math' };

/** Clone URLs a hostile forge answer (or a hostile PR author's fork name) could carry. */
const HOSTILE_CLONE_URLS = [
  'ext::sh -c touch% /tmp/pwned',
  'ext::sh -c "touch /tmp/pwned"',
  'fd::17',
  'file:///etc',
  'file://localhost/home/user/.ssh',
  '/etc/passwd',
  '--upload-pack=touch /tmp/pwned',
  '-uhttps://github.com/acme/math.git',
  'git@github.com:acme/math.git',
  'ssh://git@github.com/acme/math.git',
  'git://github.com/acme/math.git',
  'http://github.com/acme/math.git',
  'https://evil.example/acme/math.git',
  'https://github.com.evil.example/acme/math.git',
  'https://github.com@evil.example/acme/math.git',
  'https://user:pass@github.com/acme/math.git',
  'https://github.com/other/math.git',
  'https://github.com/acme/other.git',
  'https://github.com/acme/math.git?upload-pack=x',
  'https://github.com/acme/math.git#frag',
  'https://github.com/acme/math/../../evil/x.git',
  'https://github.com/acme/math.git\n--upload-pack=x',
  'https://github.com/acme/math .git',
  'https://github.com:2222/acme/math.git',
  '',
  42,
  null,
];

describe('forge clone URLs, PR URLs and branch names are hostile (SEC-2)', () => {
  it('only https to the configured forge, for the pull request\'s own repository, is accepted', () => {
    expect(cloneUrlProblem('https://github.com/acme/math.git', GITHUB, PR)).toBeNull();
    expect(cloneUrlProblem('https://github.com/acme/math', GITHUB, PR)).toBeNull();
    for (const url of HOSTILE_CLONE_URLS) expect(cloneUrlProblem(url, GITHUB, PR), String(url)).not.toBeNull();
    // A non-https scheme only when the operator configured exactly that base (a local fake in tests).
    expect(cloneUrlProblem('http://127.0.0.1:9/web/acme/math.git', 'http://127.0.0.1:9/web', PR)).toBeNull();
    expect(cloneUrlProblem('http://127.0.0.1:9/acme/math.git', 'http://127.0.0.1:9/web', PR)).not.toBeNull();
    expect(cloneUrlProblem('http://127.0.0.1:10/web/acme/math.git', 'http://127.0.0.1:9/web', PR)).not.toBeNull();
  });

  it('property: any URL accepted is https on github.com naming exactly the PR repository', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string(), fc.tuple(fc.constantFrom('https://github.com/acme/math', 'https://github.com/', 'ext::', 'file://'), fc.string()).map(([head, tail]) => head + tail)), (url) => {
        if (cloneUrlProblem(url, GITHUB, PR) !== null) return;
        const parsed = new URL(url);
        expect(parsed.protocol).toBe('https:');
        expect(parsed.host).toBe('github.com');
        expect(parsed.pathname.replace(/\.git$/, '')).toBe('/acme/math');
      }),
      { numRuns: 500 },
    );
  });

  it('PR URLs: only …/<owner>/<repo>/pull/<n> on the configured forge', () => {
    expect(parsePullRequestUrl('https://github.com/acme/math/pull/7', GITHUB)).toEqual({ owner: 'acme', repo: 'math', number: 7 });
    expect(parsePullRequestUrl('https://github.com/acme/math/pull/7/files#diff', GITHUB)).toEqual({ owner: 'acme', repo: 'math', number: 7 });
    for (const url of ['http://github.com/acme/math/pull/7', 'https://evil.example/acme/math/pull/7', 'https://github.com/acme/math/pull/0', 'https://github.com/acme/math/pull/7x', 'https://github.com/-x/math/pull/7', 'https://github.com/acme/../pull/7', 'https://github.com/acme/math.git/pull/7', 'https://x@github.com/acme/math/pull/7', 'https://github.com/acme/math/pull/99999999999', 'https://github.com/acme/math/pull/7\n', 'ext::sh']) {
      expect(typeof parsePullRequestUrl(url, GITHUB), url).toBe('string');
    }
  });

  it('base branch names that could be an option, a refspec or a revision expression are refused', () => {
    expect(branchNameProblem('main')).toBeNull();
    expect(branchNameProblem('release/2.x')).toBeNull();
    for (const name of ['-upload-pack=x', 'main:refs/heads/x', 'a..b', 'a@{1}', 'x^', 'x~1', '/abs', 'x/', 'x.lock', 'a//b', 'a b', 'a\nb', '', '.hidden', 'a/.b', 'x*', '[x]', 42]) {
      expect(branchNameProblem(name), String(name)).not.toBeNull();
    }
  });
});

describe('a hostile forge answer reaches no git', () => {
  let forge: ForgeReviewWorkspace;
  let github: FakeGitHub;
  const api = (method: string, path: string, body?: unknown) => forge.api(method, path, body);

  beforeAll(async () => {
    forge = await startForgeReviewWorkspace('Hostile forge');
    github = forge.github;
  }, 120_000);

  afterAll(async () => {
    await forge?.dispose();
  });

  it('hostile clone URLs and base branches in the PR JSON: 409 naming prUrl, no fetch, no review, no marker file', async () => {
    const pr = github.pulls.get('acme/math#7')!;
    const marker = join(tmpdir(), `cc-forge-pwned-${process.pid}`);
    const hostile: Array<Record<string, unknown>> = [
      ...[`ext::sh -c touch% ${marker}`, `--upload-pack=touch ${marker}`, 'file:///etc', `${github.url}/acme/math.git`, 'https://github.com/acme/math.git', `${github.webBaseUrl}/other/math.git`].map((clone_url) => ({ base: { ...pr.base, repo: { clone_url } } })),
      { base: { ...pr.base, ref: `--upload-pack=touch ${marker}` } },
      { base: { ...pr.base, ref: 'main:refs/heads/evil' } },
      { base: { ...pr.base, sha: 'HEAD' } },
      { head: { ...pr.head, sha: `--output=${marker}` } },
    ];
    for (const patch of hostile) {
      github.pulls.set('acme/math#7', { ...pr, ...patch });
      const before = github.requests.length;
      const answer = await api('POST', '/reviews', { prUrl: `${github.webBaseUrl}/acme/math/pull/7` });
      expect(answer.status, JSON.stringify(patch)).toBe(409);
      expect(answer.body.error.field).toBe('prUrl');
      // Only the API was asked; git fetched nothing.
      expect(github.requests.slice(before).every((request) => request.path.startsWith('/api/'))).toBe(true);
    }
    github.pulls.set('acme/math#7', pr);
    expect(existsSync(marker)).toBe(false);
    expect((await api('GET', '/reviews')).body.reviews).toEqual([]);
  });

  it('a hostile title is display data: control and bidi characters are stripped', async () => {
    const pr = github.pulls.get('acme/math#7')!;
    github.pulls.set('acme/math#7', { ...pr, title: 'Fix\u202e\u0007 bug\n# heading' });
    const answer = await api('POST', '/reviews', { prUrl: `${github.webBaseUrl}/acme/math/pull/7` });
    github.pulls.set('acme/math#7', pr);
    expect(answer.status).toBe(201);
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point
    expect(answer.body.review.title).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(answer.body.review.title).toContain('(acme/math#7)');
  });
});
