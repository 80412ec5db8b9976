import { PerKeyLock } from '../../core/per-key-lock.js';
import { branchNameProblem } from '../../core/review/forge-pull-request.js';
import { ValidationError } from '../../errors/index.js';
import { WORKTREE_BRANCH_PREFIX } from '../../git/git-worktrees.js';
import { newId, nowIso } from '../../ids.js';
import type { ConversationMerge, MergeBody } from '../../schemas/publish.js';
import { insertMerge } from '../../store/repositories/conversation-publication-repository.js';
import type { OperatorPrincipal } from '../operator-auth.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { conversationBranch } from './conversation-branch.js';
import { mergeLocally } from './local-merge.js';

/**
 * Merging a conversation's branch into a branch of the user's repository (CHG-2), by the operator:
 * a fast-forward when possible, else a merge commit (unless `ffOnly`), refused with the conflicting
 * files listed when it does not apply cleanly, never forced (see {@link mergeLocally}). Each merge is
 * recorded, so the conversation shows where its work went.
 */
export class MergeService {
  /** One merge into a repository at a time: two merges into the same branch would race on its tip. */
  private readonly lock = new PerKeyLock();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly checkouts: CheckoutService,
  ) {}

  async merge(workspaceId: string, conversationId: string, body: MergeBody, by: OperatorPrincipal): Promise<ConversationMerge> {
    const problem = branchNameProblem(body.into);
    if (problem) throw new ValidationError('into', `into ${JSON.stringify(body.into.slice(0, 100))} refused: ${problem}`);
    if (body.into.startsWith(WORKTREE_BRANCH_PREFIX)) throw new ValidationError('into', `${body.into} is a conversation's branch (${WORKTREE_BRANCH_PREFIX}…); merge into a branch of your own`);
    const branch = await conversationBranch(this.spaces, this.checkouts, workspaceId, conversationId);
    return this.lock.exclusive(branch.record.repoPath, async () => {
      const result = await mergeLocally({
        repoPath: branch.record.repoPath,
        sourceBranch: branch.branch,
        sourceSha: branch.sha,
        into: body.into,
        expectedSha: body.expectedSha,
        ffOnly: body.ffOnly ?? false,
        message: `Merge ${branch.branch} into ${body.into}\n\nFrom the Control Center conversation ${conversationId}.`,
      });
      const merge: ConversationMerge = {
        id: newId('mrg'),
        conversationId,
        targetBranch: body.into,
        kind: result.kind,
        previousSha: result.previousSha,
        sourceSha: branch.sha,
        mergedSha: result.mergedSha,
        operatorId: by.operatorId,
        createdAt: nowIso(),
      };
      const db = (await this.workspaces.handle(workspaceId)).database.db;
      await insertMerge(db, {
        id: merge.id,
        conversation_id: conversationId,
        target_branch: merge.targetBranch,
        kind: merge.kind,
        previous_sha: merge.previousSha,
        source_sha: merge.sourceSha,
        merged_sha: merge.mergedSha,
        operator_id: merge.operatorId,
        created_at: merge.createdAt,
      });
      return merge;
    });
  }
}
