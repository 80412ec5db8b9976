import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import type { CheckoutRecord } from '../../git/git-worktrees.js';
import type { ChangeDiff, ChangesReview, ChangeTurn, ConversationChanges } from '../../schemas/changes.js';
import { listTurnsWithCheckpoints } from '../../store/repositories/change-turn-repository.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ReviewService } from '../reviews/review-service.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { blobSizes, listCheckoutChanges, readCheckoutDiff } from './checkout-changes.js';
import type { ListedFile } from './diff-listing.js';

export interface ChangesRequest {
  turn?: number | undefined;
  offset: number;
  limit: number;
}

export interface ChangeDiffRequest {
  from: string;
  to: string;
  path?: string | undefined;
  oldPath?: string | undefined;
}

/**
 * CHG-1: what a conversation changed — against the base its branch started from, in total or per turn
 * (between consecutive turn checkpoints, CTX-3), the checkout's uncommitted work included — and the
 * way to a review of it. Read from the conversation's checkout, never from anything the agent names.
 */
export class ChangeService {
  constructor(
    private readonly deps: {
      workspaces: WorkspaceService;
      spaces: SpaceService;
      agents: AgentService;
      checkouts: CheckoutService;
      reviews: ReviewService;
    },
  ) {}

  /** The changes (one page of files, all totals) in total or of one turn. */
  async changes(workspaceId: string, conversationId: string, request: ChangesRequest): Promise<ConversationChanges> {
    const record = await this.checkoutOf(workspaceId, conversationId);
    const turns = await this.turns(workspaceId, conversationId);
    const runner = await this.deps.checkouts.runner(workspaceId, record);
    const range = this.rangeOf(record, turns, request.turn);
    const listed = range ? await listCheckoutChanges(runner, range.from, range.to) : { to: record.baseSha, uncommittedFiles: null, files: [] };
    const sorted = listed.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const page = sorted.slice(request.offset, request.offset + request.limit);
    const binaryBlobs = page.filter((file) => file.binary).flatMap((file) => [file.blobBefore, file.blobAfter].filter((blob): blob is string => blob !== null));
    const sizes = await blobSizes(runner, binaryBlobs);
    return {
      conversationId,
      branch: record.branch,
      baseSha: record.baseSha,
      turn: request.turn ?? null,
      from: range?.from ?? record.baseSha,
      to: listed.to,
      live: range ? range.to === null : false,
      uncommittedFiles: listed.uncommittedFiles,
      totals: {
        files: sorted.length,
        additions: sorted.reduce((sum, file) => sum + file.additions, 0),
        deletions: sorted.reduce((sum, file) => sum + file.deletions, 0),
        binary: sorted.filter((file) => file.binary).length,
      },
      files: page.map((file) => withSizes(file, sizes)),
      page: { offset: request.offset, limit: request.limit, total: sorted.length },
      turns: turns.map((turn, index) => ({ number: index + 1, runId: turn.runId, startedAt: turn.startedAt, checkpoint: turn.checkpoint })),
    };
  }

  /** The diff between two objects a listing gave, of one file or of all (capped either way). */
  async diff(workspaceId: string, conversationId: string, request: ChangeDiffRequest): Promise<ChangeDiff> {
    const record = await this.checkoutOf(workspaceId, conversationId);
    if (request.oldPath !== undefined && request.path === undefined) throw new ValidationError('path', 'path is required with oldPath');
    const runner = await this.deps.checkouts.runner(workspaceId, record);
    const paths = [request.oldPath, request.path].filter((path): path is string => path !== undefined);
    return readCheckoutDiff(runner, request.from, request.to, paths);
  }

  /**
   * Opens (or re-opens, as a new round) a review of the conversation's branch against its base: the
   * branch is first brought into the user's repository, where reviews read. Uncommitted work in the
   * checkout is not on the branch, so it is counted and said, not reviewed.
   */
  async openReview(workspaceId: string, conversationId: string, reviewers: readonly string[] | undefined): Promise<ChangesReview> {
    const { conversation } = await this.deps.spaces.getConversationInSpace(workspaceId, conversationId);
    const record = await this.checkoutOf(workspaceId, conversationId);
    for (const [index, name] of (reviewers ?? []).entries()) {
      if (!(await this.deps.agents.findByName(workspaceId, name))) throw new ValidationError(`reviewers.${index}`, `there is no agent named ${JSON.stringify(name)} in this workspace`);
    }
    const synced = await this.deps.checkouts.sync(workspaceId, conversationId, record);
    if (synced && !synced.synced) throw new ConflictError('conversationId', `the branch ${record.branch} could not be brought into ${record.repoPath}: ${synced.reason}`);
    const runner = await this.deps.checkouts.runner(workspaceId, record);
    const head = `refs/heads/${record.branch}`;
    const opened = await this.deps.reviews.open(workspaceId, { repoPath: record.repoPath, base: record.baseSha, head, title: `Changes of ${conversation.title}`.slice(0, 200) });
    if (reviewers?.length) await this.deps.reviews.dispatch(workspaceId, opened.review.id, reviewers);
    const now = await listCheckoutChanges(runner, opened.review.headSha, null);
    return { reviewId: opened.review.id, created: opened.created, head: record.branch, headSha: opened.review.headSha, uncommittedFiles: now.uncommittedFiles ?? now.files.length };
  }

  private async checkoutOf(workspaceId: string, conversationId: string): Promise<CheckoutRecord> {
    const { space } = await this.deps.spaces.getConversationInSpace(workspaceId, conversationId);
    const record = await this.deps.checkouts.record(workspaceId, conversationId);
    if (!record) {
      throw new ConflictError('conversationId', space.repoPath ? 'this conversation has no checkout yet: its changes appear once a turn has run' : 'this conversation’s space has no repository, so there are no changes to show');
    }
    // A checkout removed since (HAR-7) is made again on the branch synced into the user's repository.
    const handle = await this.deps.workspaces.handle(workspaceId);
    if (!existsSync(join(handle.dir, 'worktrees', conversationId))) await this.deps.checkouts.ensure(workspaceId, conversationId, record.repoPath);
    return record;
  }

  private async turns(workspaceId: string, conversationId: string) {
    const { database } = await this.deps.workspaces.handle(workspaceId);
    return listTurnsWithCheckpoints(database.db, conversationId);
  }

  /**
   * What to compare: the base to the checkout now (total), or turn N's checkpoint to the next
   * checkpoint a later turn took (or to the checkout now, when none did). Null for a turn that took no
   * checkpoint — it made no call that could change the checkout.
   */
  private rangeOf(record: CheckoutRecord, turns: ReadonlyArray<Pick<ChangeTurn, 'checkpoint'>>, turn: number | undefined): { from: string; to: string | null } | null {
    if (turn === undefined) return { from: record.baseSha, to: null };
    const chosen = turns[turn - 1];
    if (!chosen) throw new NotFoundError('turn', String(turn), 'turn');
    if (!chosen.checkpoint) return null;
    const next = turns.slice(turn).find((later) => later.checkpoint !== null);
    return { from: chosen.checkpoint, to: next?.checkpoint ?? null };
  }
}

function withSizes(file: ListedFile, sizes: ReadonlyMap<string, number>): ConversationChanges['files'][number] {
  const { blobBefore, blobAfter, ...shown } = file;
  if (!file.binary) return shown;
  return { ...shown, sizeBefore: blobBefore ? (sizes.get(blobBefore) ?? null) : null, sizeAfter: blobAfter ? (sizes.get(blobAfter) ?? null) : null };
}
