import type { ForgeReviewDraft } from '../../../core/review/forge-publication.js';
import type { PullRequestRef } from '../../../core/review/forge-pull-request.js';

/** A pull request as the forge describes it, every value checked (the forge's JSON is hostile). */
export interface ForgePullRequest {
  ref: PullRequestRef;
  /** Display data only. */
  title: string;
  webUrl: string;
  /** The base repository's clone URL, checked by `cloneUrlProblem`. */
  cloneUrl: string;
  /** The base branch name, checked by `branchNameProblem`. */
  baseBranch: string;
  baseSha: string;
  headSha: string;
  state: string;
}

/** The refs a fetch wrote into the server's mirror of the repository. */
export interface FetchedPullRequest {
  repoPath: string;
  baseRef: string;
  headRef: string;
  headSha: string;
}

/**
 * What the review service needs of a forge, GitHub first. An adapter holds the forge's
 * configuration (API base, web base, token) for one call; the token never leaves it.
 */
export interface ForgeAdapter {
  readonly provider: string;
  /** Parses a pull-request URL of this forge; a string is the problem, for a 400 naming `prUrl`. */
  parseUrl(url: string): PullRequestRef | string;
  readPullRequest(ref: PullRequestRef): Promise<ForgePullRequest>;
  /** Fetches the PR's head and base with the hardened git into the server-owned mirror under `mirrorsDir`. */
  fetchPullRequest(pr: ForgePullRequest, mirrorsDir: string): Promise<FetchedPullRequest>;
  /** The id of a review already on the PR whose body holds `marker`, or null. */
  findReview(ref: PullRequestRef, marker: string): Promise<string | null>;
  /** Posts ONE review with its inline comments; returns the forge's review id. */
  createReview(ref: PullRequestRef, headSha: string, draft: ForgeReviewDraft): Promise<string>;
}
