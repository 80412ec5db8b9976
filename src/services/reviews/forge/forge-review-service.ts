import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { draftForgeReview, publicationMarker } from '../../../core/review/forge-publication.js';
import type { PullRequestRef } from '../../../core/review/forge-pull-request.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../../errors/index.js';
import { newId, nowIso } from '../../../ids.js';
import type { Approval } from '../../../schemas/approval.js';
import type { ForgeLink, OpenPullRequestReviewBody, Review, ReviewPublication } from '../../../schemas/review.js';
import type { WorkspaceSettings } from '../../../schemas/settings.js';
import { claimPublication, findForgeLink, findPublication, findPublicationById, movePublication, putForgeLink } from '../../../store/repositories/review-forge-repository.js';
import type { WorkspaceSchema } from '../../../store/workspace-schema.js';
import type { ApprovalService } from '../../approvals/approval-service.js';
import type { PolicyService } from '../../approvals/policy-service.js';
import type { OperatorPrincipal } from '../../operator-auth.js';
import type { SettingsService } from '../../workspaces/settings-service.js';
import type { WorkspaceService } from '../../workspaces/workspace-service.js';
import type { ReviewService } from '../review-service.js';
import type { ForgeAdapter } from './forge-adapter.js';
import { GitHubForge } from './github-forge.js';

/** The approval kind a publication asks under (POL-7: durable, it survives a restart). */
export const FORGE_PUBLISH_APPROVAL = 'forgePublish';

/** The workspace's GitHub adapter, built from its settings for one call (the token stays inside it). */
export function githubForgeOf(settings: WorkspaceSettings): ForgeAdapter {
  return new GitHubForge({ apiBaseUrl: settings.githubApiBaseUrl, webBaseUrl: settings.githubWebBaseUrl, token: settings.forgeTokens.github });
}

/**
 * Reviews of forge pull requests (GitHub first): opening one from a PR URL — read through
 * the REST API, head and base fetched by the hardened git into a server-owned mirror, then the usual
 * review flow — and publishing the verdict back as ONE review with inline comments, gated by the
 * `prPublish` policy class and idempotent per review and head SHA.
 */
export class ForgeReviewService {
  private readonly publishing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      workspaces: WorkspaceService;
      settings: SettingsService;
      reviews: ReviewService;
      approvals: ApprovalService;
      policy: PolicyService;
      forgeOf?: (settings: WorkspaceSettings) => ForgeAdapter;
    },
  ) {
    deps.approvals.onDecided((workspaceId, approval) => this.onDecided(workspaceId, approval));
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.deps.workspaces.handle(workspaceId)).database.db;
  }

  private async forge(workspaceId: string): Promise<ForgeAdapter> {
    const settings = await this.deps.settings.get(workspaceId);
    return (this.deps.forgeOf ?? githubForgeOf)(settings);
  }

  /**
   * Opens (or re-reviews) the review of a pull request. Nothing is recorded until the PR was read,
   * its clone URL and base branch checked, and head and base fetched: a bad URL, an unknown PR or a
   * refused token changes nothing in the workspace.
   */
  async open(workspaceId: string, body: OpenPullRequestReviewBody): Promise<{ review: Review; created: boolean; reReview: boolean; pullRequest: ForgeLink }> {
    const forge = await this.forge(workspaceId);
    const ref = forge.parseUrl(body.prUrl);
    if (typeof ref === 'string') throw new ValidationError('prUrl', `prUrl refused: ${ref}`);
    const pr = await forge.readPullRequest(ref);
    const handle = await this.deps.workspaces.handle(workspaceId);
    const fetched = await forge.fetchPullRequest(pr, join(handle.dir, 'forge-mirrors'));
    const opened = await this.deps.reviews.open(workspaceId, {
      repoPath: fetched.repoPath,
      base: fetched.baseRef,
      head: fetched.headRef,
      title: body.title ?? `${pr.title} (${ref.owner}/${ref.repo}#${ref.number})`.slice(0, 200),
    });
    await putForgeLink(handle.database.db, {
      review_id: opened.review.id,
      provider: forge.provider,
      owner: ref.owner,
      repo: ref.repo,
      number: ref.number,
      web_url: pr.webUrl,
      created_at: nowIso(),
    });
    return { ...opened, pullRequest: (await findForgeLink(handle.database.db, opened.review.id))! };
  }

  async state(workspaceId: string, reviewId: string): Promise<{ pullRequest: ForgeLink | null; publication: ReviewPublication | null }> {
    const review = await this.deps.reviews.get(workspaceId, reviewId);
    const db = await this.db(workspaceId);
    return { pullRequest: await findForgeLink(db, reviewId), publication: await findPublication(db, reviewId, review.headSha) };
  }

  /**
   * Publishes the review's published verdict to its pull request. The `prPublish` policy
   * class decides first (space and workspace rules; the space's autonomy dial is for agents, not for
   * an operator's own action): deny → 403 and nothing is sent; ask → an approval the operator decides
   * (sent when approved, never when rejected); allow → sent now. Idempotent: a review's head is
   * published at most once — a second call answers the first publication, and a crash between the
   * post and the record is healed by finding our marker on the PR before posting again.
   */
  async publish(workspaceId: string, reviewId: string, by: OperatorPrincipal): Promise<{ publication: ReviewPublication; created: boolean }> {
    const key = `${workspaceId}\0${reviewId}`;
    const previous = this.publishing.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.publishSerialized(workspaceId, reviewId, by));
    this.publishing.set(key, next);
    try {
      return await next;
    } finally {
      if (this.publishing.get(key) === next) this.publishing.delete(key);
    }
  }

  private async publishSerialized(workspaceId: string, reviewId: string, by: OperatorPrincipal): Promise<{ publication: ReviewPublication; created: boolean }> {
    const review = await this.deps.reviews.get(workspaceId, reviewId);
    const db = await this.db(workspaceId);
    const link = await findForgeLink(db, reviewId);
    if (!link) throw new ConflictError('reviewId', `review ${reviewId} was not opened from a pull request; there is nothing to publish to`);
    if (!review.verdict || review.verdict.headSha !== review.headSha) throw new ConflictError('reviewId', `review ${reviewId} has no published verdict for its current head; finalize it first`);
    const existing = await findPublication(db, reviewId, review.headSha);
    if (existing && existing.status !== 'rejected' && existing.status !== 'failed') return { publication: existing, created: false };
    const draft = await this.draft(workspaceId, review);
    const summary = `publish a ${draft.event} review with ${draft.comments.length} inline comment(s) to ${link.owner}/${link.repo}#${link.number}`;
    const verdict = await this.deps.policy.probe(workspaceId, {
      spaceId: review.spaceId,
      mode: 'chat',
      autonomy: 'actWithApproval',
      action: { classes: ['prPublish'], summary, tier: 'execute', toolName: 'forge.publishReview' },
    });
    if (verdict.decision === 'deny') throw new ForbiddenError(`publishing to ${link.owner}/${link.repo}#${link.number} is denied by policy: ${verdict.explanation}`, 'prPublish');
    const now = nowIso();
    let publication: ReviewPublication;
    if (existing) {
      // A rejected or failed publication of this head may be tried again; it keeps its row.
      await movePublication(db, existing.id, ['rejected', 'failed'], { status: 'awaitingApproval', event: draft.event, comment_count: draft.comments.length, error: null, approval_id: null, requested_by: `operator:${by.operatorId}` }, now);
      publication = (await findPublicationById(db, existing.id))!;
    } else {
      const claimed = await claimPublication(db, {
        id: newId('pub'),
        review_id: reviewId,
        head_sha: review.headSha,
        status: 'awaitingApproval',
        event: draft.event,
        approval_id: null,
        forge_review_id: null,
        comment_count: draft.comments.length,
        error: null,
        requested_by: `operator:${by.operatorId}`,
        created_at: now,
        updated_at: now,
      });
      if (!claimed.created) return { publication: claimed.publication, created: false };
      publication = claimed.publication;
    }
    if (verdict.decision === 'ask') {
      const approval = await this.deps.approvals.create(workspaceId, {
        kind: FORGE_PUBLISH_APPROVAL,
        durable: true,
        spaceId: review.spaceId,
        conversationId: review.conversationId,
        title: `Publish the review verdict (${review.verdict.verdict}) to ${link.owner}/${link.repo}#${link.number}`,
        request: { reviewId, publicationId: publication.id, pullRequest: link.webUrl, event: draft.event, comments: draft.comments.length, summary, classes: ['prPublish'] },
      });
      await movePublication(db, publication.id, ['awaitingApproval'], { approval_id: approval.id }, nowIso());
      return { publication: (await findPublicationById(db, publication.id))!, created: true };
    }
    return { publication: await this.send(workspaceId, publication.id), created: true };
  }

  private async draft(workspaceId: string, review: Review) {
    const { findings } = await this.deps.reviews.findings(workspaceId, review.id);
    return draftForgeReview({ reviewId: review.id, headSha: review.headSha, verdict: review.verdict!, findings, hunks: review.hunkMap });
  }

  /** An operator decided a publication's approval: approved → send it; anything else → nothing is sent. */
  private async onDecided(workspaceId: string, approval: Approval): Promise<void> {
    if (approval.kind !== FORGE_PUBLISH_APPROVAL) return;
    const publicationId = approval.request.publicationId;
    if (typeof publicationId !== 'string') return;
    const db = await this.db(workspaceId);
    if (approval.status !== 'approved') {
      await movePublication(db, publicationId, ['awaitingApproval'], { status: 'rejected', error: approval.reason ?? `the approval was ${approval.status}` }, nowIso());
      return;
    }
    // Sent in the background: the operator's decision answers at once; the publication row says how it went.
    void this.send(workspaceId, publicationId).catch(() => undefined);
  }

  /**
   * Sends one publication: claims it (`awaitingApproval` → `publishing`, so only one sender wins),
   * looks for our marker on the PR first (a review already posted is adopted, never posted twice),
   * then posts the review with its inline comments. The draft is made now, from the review as it is.
   */
  private async send(workspaceId: string, publicationId: string): Promise<ReviewPublication> {
    const db = await this.db(workspaceId);
    const before = await findPublicationById(db, publicationId);
    if (!before) throw new NotFoundError('publication', publicationId);
    if (!(await movePublication(db, publicationId, ['awaitingApproval'], { status: 'publishing' }, nowIso()))) return (await findPublicationById(db, publicationId))!;
    try {
      const review = await this.deps.reviews.get(workspaceId, before.reviewId);
      const link = await findForgeLink(db, before.reviewId);
      if (!link) throw new ConflictError('reviewId', 'the review has no pull request');
      if (!review.verdict || review.headSha !== before.headSha) throw new ConflictError('reviewId', 'the review moved to another head before the publication was sent; publish again');
      const forge = await this.forge(workspaceId);
      const ref: PullRequestRef = { owner: link.owner, repo: link.repo, number: link.number };
      const marker = publicationMarker(review.id, review.headSha);
      const draft = await this.draft(workspaceId, review);
      const forgeReviewId = (await forge.findReview(ref, marker)) ?? (await forge.createReview(ref, review.headSha, draft));
      await movePublication(db, publicationId, ['publishing'], { status: 'published', forge_review_id: forgeReviewId, event: draft.event, comment_count: draft.comments.length, error: null }, nowIso());
    } catch (error) {
      await movePublication(db, publicationId, ['publishing'], { status: 'failed', error: (error instanceof Error ? error.message : String(error)).slice(0, 2000) }, nowIso());
    }
    return (await findPublicationById(db, publicationId))!;
  }
}
