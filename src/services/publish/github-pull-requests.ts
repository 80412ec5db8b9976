import { z } from 'zod';
import { commitIdOf } from '../../core/review/forge-pull-request.js';
import { ConflictError } from '../../errors/index.js';
import { GitHubForge, type GitHubConfig } from '../reviews/forge/github-forge.js';

/** The field a forge error about publishing is reported against. */
const FIELD = 'conversationId';

/** A pull request as the forge answered it, every value checked (the forge's JSON is hostile, SEC-2). */
export interface PublishedPullRequest {
  number: number;
  /** Built by the server from the configured web base, never taken from the answer. */
  webUrl: string;
  state: 'open' | 'closed' | 'merged';
  headSha: string | null;
}

/** Only what is used; every value is checked again below. */
const PullRequestAnswer = z.object({
  number: z.number(),
  state: z.unknown(),
  merged_at: z.unknown().optional(),
  merged: z.unknown().optional(),
  head: z.object({ sha: z.unknown(), ref: z.unknown().optional() }).optional(),
});

/**
 * Opening and updating a conversation's pull request on GitHub (CHG-2), through the same REST client
 * the review publication uses (its token handling, answer cap and error mapping). Titles and bodies
 * travel only as JSON values; the branch names are the server's own `cc/<conversation>`.
 */
export class GitHubPullRequests {
  private readonly forge: GitHubForge;

  constructor(private readonly config: GitHubConfig) {
    this.forge = new GitHubForge(config);
  }

  private where(owner: string, repo: string): { where: string; field: string } {
    return { where: `${owner}/${repo}`, field: FIELD };
  }

  private checked(raw: unknown, owner: string, repo: string, expectedNumber?: number): PublishedPullRequest {
    const parsed = PullRequestAnswer.safeParse(raw);
    if (!parsed.success || !Number.isSafeInteger(parsed.data.number) || parsed.data.number < 1 || parsed.data.number > 2_147_483_647) {
      throw new ConflictError(FIELD, `GitHub answered for ${owner}/${repo} with a pull request of an unexpected shape`);
    }
    const answer = parsed.data;
    if (expectedNumber !== undefined && answer.number !== expectedNumber) throw new ConflictError(FIELD, `GitHub answered with pull request #${answer.number} where #${expectedNumber} was asked for`);
    const merged = answer.merged === true || (typeof answer.merged_at === 'string' && answer.merged_at !== '');
    const state = merged ? 'merged' : answer.state === 'closed' ? 'closed' : answer.state === 'open' ? 'open' : null;
    if (!state) throw new ConflictError(FIELD, `GitHub answered for ${owner}/${repo} with a pull request state that is neither open nor closed`);
    return {
      number: answer.number,
      webUrl: `${this.config.webBaseUrl.replace(/\/+$/, '')}/${owner}/${repo}/pull/${answer.number}`,
      state,
      headSha: commitIdOf(answer.head?.sha),
    };
  }

  async read(owner: string, repo: string, number: number): Promise<PublishedPullRequest> {
    return this.checked(await this.forge.request('GET', `${this.forge.repoPath({ owner, repo })}/pulls/${number}`, this.where(owner, repo)), owner, repo, number);
  }

  /** The open pull request whose head is `headBranch` of the same repository, or null (heals a publish that crashed after opening it). */
  async findOpen(owner: string, repo: string, headBranch: string): Promise<PublishedPullRequest | null> {
    const head = encodeURIComponent(`${owner}:${headBranch}`);
    const answer = await this.forge.request('GET', `${this.forge.repoPath({ owner, repo })}/pulls?head=${head}&state=open&per_page=10`, this.where(owner, repo));
    if (!Array.isArray(answer)) throw new ConflictError(FIELD, `GitHub answered the pull request list of ${owner}/${repo} with something that is not a list`);
    const found = answer.map((item) => this.checked(item, owner, repo)).find((pr) => pr.state === 'open');
    return found ?? null;
  }

  async create(owner: string, repo: string, input: { title: string; body: string; head: string; base: string }): Promise<PublishedPullRequest> {
    return this.checked(await this.forge.request('POST', `${this.forge.repoPath({ owner, repo })}/pulls`, this.where(owner, repo), input), owner, repo);
  }

  async update(owner: string, repo: string, number: number, input: { title: string; body: string }): Promise<PublishedPullRequest> {
    return this.checked(await this.forge.request('PATCH', `${this.forge.repoPath({ owner, repo })}/pulls/${number}`, this.where(owner, repo), input), owner, repo, number);
  }
}
