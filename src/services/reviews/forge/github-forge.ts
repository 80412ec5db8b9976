import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ForgeReviewDraft } from '../../../core/review/forge-publication.js';
import { branchNameProblem, cloneUrlProblem, commitIdOf, parsePullRequestUrl, type PullRequestRef } from '../../../core/review/forge-pull-request.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../errors/index.js';
import { NO_REDIRECTS } from '../../../git/forge-read-access.js';
import { runGit } from '../../../git/run-git.js';
import { readCappedResponse, type CappedBody } from '../../../llm/read-capped-body.js';
import { formatBytes } from '../../../sandbox/process-limits.js';
import type { FetchedPullRequest, ForgeAdapter, ForgePullRequest } from './forge-adapter.js';

/** The GitHub configuration of one workspace (its settings). */
export interface GitHubConfig {
  apiBaseUrl: string;
  webBaseUrl: string;
  token: string | undefined;
}

/** The setting that holds the token: the field errors about it name. */
const TOKEN_FIELD = 'forgeTokens.github';
/**
 * Largest API answer read (SEC-10); past it the read stops, the connection is dropped and the step
 * fails naming the cap. The largest real answer is a page of 100 reviews whose bodies may each hold
 * 65,536 characters (about 7 MB as JSON); a pull request is a few KB.
 */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;

/** Only what is used, loosely typed: every value is checked again before it is used. */
const PullRequestJson = z.object({
  number: z.number(),
  title: z.unknown(),
  html_url: z.unknown(),
  state: z.unknown(),
  head: z.object({ sha: z.unknown() }),
  base: z.object({ ref: z.unknown(), sha: z.unknown(), repo: z.object({ clone_url: z.unknown() }).nullable() }),
});
const ReviewListJson = z.array(z.object({ id: z.union([z.number(), z.string()]), body: z.unknown() }));
const CreatedReviewJson = z.object({ id: z.union([z.number(), z.string()]) });

/** Display text from the forge: a bounded string without control characters (titles are display data). */
export function displayText(raw: unknown, max: number): string {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  return typeof raw === 'string' ? raw.replace(/[\u0000-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ').trim().slice(0, max) : '';
}

/**
 * GitHub through its REST API. The token is sent only to the configured API base and, as
 * an HTTP header passed through git's environment, to the configured web base when fetching; it is
 * never in an error message, a log line, an event or a command line (SEC-6).
 */
export class GitHubForge implements ForgeAdapter {
  readonly provider = 'github';

  constructor(private readonly config: GitHubConfig) {}

  parseUrl(url: string): PullRequestRef | string {
    return parsePullRequestUrl(url, this.config.webBaseUrl);
  }

  private token(): string {
    if (!this.config.token) throw new ValidationError(TOKEN_FIELD, 'no GitHub token is configured for this workspace: set forgeTokens.github in the workspace settings');
    return this.config.token;
  }

  /**
   * One REST API call with the workspace's token, the answer capped and parsed as JSON (the caller
   * checks its shape). `about` names what the call is about in errors: the repository or pull request
   * (`where`) and the request field an error is reported against (`field`, default `prUrl`).
   */
  async request(method: 'GET' | 'POST' | 'PATCH', path: string, about: PullRequestRef | { where: string; field: string }, body?: unknown): Promise<unknown> {
    const field = 'field' in about ? about.field : 'prUrl';
    const where = 'where' in about ? about.where : `${about.owner}/${about.repo}#${about.number}`;
    const token = this.token();
    const url = `${this.config.apiBaseUrl.replace(/\/+$/, '')}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        redirect: 'error',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'control-center',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new ConflictError(field, `GitHub could not be reached (${error instanceof Error ? error.name : 'error'})`);
    }
    let read: CappedBody;
    try {
      read = await readCappedResponse(response, MAX_RESPONSE_BYTES);
    } catch (error) {
      throw new ConflictError(field, `GitHub's answer for ${where} broke off (${error instanceof Error ? error.name : 'error'})`);
    }
    if (read.overCap) throw new ConflictError(field, `GitHub answered ${path.split('?')[0]} with more than ${formatBytes(MAX_RESPONSE_BYTES)}, the most the server reads of a GitHub API answer; it was not read further`);
    const text = read.bytes.toString('utf8');
    if (response.status === 401) throw new ValidationError(TOKEN_FIELD, 'GitHub refused the configured token (401): it is wrong, expired or revoked');
    if (response.status === 403) throw new ValidationError(TOKEN_FIELD, `GitHub refused the configured token for ${where} (403): it lacks access or a rate limit was hit`);
    if (response.status === 404) throw new NotFoundError('field' in about ? 'repository' : 'pull request', where, field);
    if (response.status === 422) throw new ConflictError(field, `GitHub refused the request for ${where} (422)`);
    if (!response.ok) throw new ConflictError(field, `GitHub answered ${response.status} for ${where}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ConflictError(field, `GitHub answered with something that is not JSON for ${where}`);
    }
  }

  /** The API path of a repository, each part escaped. */
  repoPath(ref: Pick<PullRequestRef, 'owner' | 'repo'>): string {
    return `/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}`;
  }

  async readPullRequest(ref: PullRequestRef): Promise<ForgePullRequest> {
    const parsed = PullRequestJson.safeParse(await this.request('GET', `${this.repoPath(ref)}/pulls/${ref.number}`, ref));
    if (!parsed.success || parsed.data.number !== ref.number) throw new ConflictError('prUrl', 'GitHub answered with a pull request of an unexpected shape');
    const pr = parsed.data;
    const baseSha = commitIdOf(pr.base.sha);
    const headSha = commitIdOf(pr.head.sha);
    if (!baseSha || !headSha) throw new ConflictError('prUrl', 'GitHub answered with a base or head that is not a commit id');
    const branchProblem = branchNameProblem(pr.base.ref);
    if (branchProblem) throw new ConflictError('prUrl', `the pull request's base branch was refused: ${branchProblem}`);
    const cloneProblem = cloneUrlProblem(pr.base.repo?.clone_url, this.config.webBaseUrl, ref);
    if (cloneProblem) throw new ConflictError('prUrl', `the pull request's clone URL was refused: ${cloneProblem}`);
    return {
      ref,
      title: displayText(pr.title, 200) || `Pull request #${ref.number}`,
      webUrl: `${this.config.webBaseUrl.replace(/\/+$/, '')}/${ref.owner}/${ref.repo}/pull/${ref.number}`,
      cloneUrl: pr.base.repo!.clone_url as string,
      baseBranch: pr.base.ref as string,
      baseSha,
      headSha,
      state: displayText(pr.state, 20),
    };
  }

  /**
   * Fetches `refs/pull/<n>/head` (which also holds a fork's head) and the base branch from the base
   * repository into a server-owned mirror, `<mirrorsDir>/github/<owner>/<repo>`, as
   * `refs/cc-review/pull/<n>/{head,base}`. The URL and refspecs are operands after
   * `--end-of-options`; the token travels as an `http.extraHeader` in git's environment, scoped to
   * the checked clone URL.
   */
  async fetchPullRequest(pr: ForgePullRequest, mirrorsDir: string): Promise<FetchedPullRequest> {
    const problem = cloneUrlProblem(pr.cloneUrl, this.config.webBaseUrl, pr.ref) ?? branchNameProblem(pr.baseBranch);
    if (problem) throw new ConflictError('prUrl', `refused to fetch: ${problem}`);
    const repoPath = join(mirrorsDir, 'github', pr.ref.owner, pr.ref.repo);
    await mkdir(repoPath, { recursive: true });
    await runGit(['init', '--quiet', '--template='], { cwd: repoPath, trust: 'serverOwned' });
    const headRef = `refs/cc-review/pull/${pr.ref.number}/head`;
    const baseRef = `refs/cc-review/pull/${pr.ref.number}/base`;
    const basic = Buffer.from(`x-access-token:${this.token()}`).toString('base64');
    try {
      await runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--recurse-submodules=no'], {
        cwd: repoPath,
        trust: 'serverOwned',
        operands: [pr.cloneUrl, `+refs/pull/${pr.ref.number}/head:${headRef}`, `+refs/heads/${pr.baseBranch}:${baseRef}`],
        secretConfig: [[`http.${pr.cloneUrl}.extraHeader`, `Authorization: Basic ${basic}`], NO_REDIRECTS],
      });
    } catch (error) {
      // git's message names the URL and the refs, never the header; still, keep only its first line.
      const first = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replaceAll(basic, '***');
      throw new ConflictError('prUrl', `could not fetch the pull request's head and base: ${first}`);
    }
    const fetched = (await runGit(['rev-parse', '--verify', '--quiet'], { cwd: repoPath, operands: [`${headRef}^{commit}`] })).stdout.trim();
    if (fetched !== pr.headSha) throw new ConflictError('prUrl', `the pull request moved while it was being fetched (API head ${pr.headSha.slice(0, 12)}, fetched ${fetched.slice(0, 12)}); open it again`);
    return { repoPath, baseRef, headRef, headSha: fetched };
  }

  async findReview(ref: PullRequestRef, marker: string): Promise<string | null> {
    for (let page = 1; page <= 10; page += 1) {
      const parsed = ReviewListJson.safeParse(await this.request('GET', `${this.repoPath(ref)}/pulls/${ref.number}/reviews?per_page=100&page=${page}`, ref));
      if (!parsed.success) throw new ConflictError('prUrl', "GitHub answered with a review list of an unexpected shape");
      const found = parsed.data.find((review) => typeof review.body === 'string' && review.body.includes(marker));
      if (found) return String(found.id);
      if (parsed.data.length < 100) return null;
    }
    return null;
  }

  async createReview(ref: PullRequestRef, headSha: string, draft: ForgeReviewDraft): Promise<string> {
    const body = {
      commit_id: headSha,
      event: draft.event,
      body: draft.body,
      comments: draft.comments.map((comment) => ({
        path: comment.path,
        line: comment.line,
        side: 'RIGHT',
        ...(comment.startLine !== undefined ? { start_line: comment.startLine, start_side: 'RIGHT' } : {}),
        body: comment.body,
      })),
    };
    const parsed = CreatedReviewJson.safeParse(await this.request('POST', `${this.repoPath(ref)}/pulls/${ref.number}/reviews`, ref, body));
    if (!parsed.success) throw new ConflictError('prUrl', 'GitHub answered the new review with an unexpected shape');
    return String(parsed.data.id);
  }
}
