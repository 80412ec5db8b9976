import { ConflictError } from '../../errors/index.js';
import type { CheckoutRecord } from '../../git/git-worktrees.js';
import { runGit, tryGit } from '../../git/run-git.js';
import type { Conversation, Space } from '../../schemas/space.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';

/** A conversation's branch in the user's repository, as publish and merge start from it (CHG-2). */
export interface ConversationBranch {
  conversation: Conversation;
  space: Space;
  record: CheckoutRecord;
  /** `cc/<conversation>`: the server's name, never an agent's. */
  branch: string;
  /** The commit the branch is at in the user's repository, after bringing the checkout's over. */
  sha: string;
}

/**
 * The conversation's branch, brought over from its checkout into the user's repository first (SEC-3:
 * the server does it, from the record), so what is published or merged is what the agent committed.
 * Refused (409) for a conversation without a git checkout, or whose branch has nothing beyond its base.
 */
export async function conversationBranch(spaces: SpaceService, checkouts: CheckoutService, workspaceId: string, conversationId: string): Promise<ConversationBranch> {
  const { conversation, space } = await spaces.getConversationInSpace(workspaceId, conversationId);
  const record = await checkouts.record(workspaceId, conversationId);
  if (!record) throw new ConflictError('conversationId', `conversation ${conversationId} has no git checkout yet: its space has no repository, or no run has worked in it`);
  const synced = await checkouts.sync(workspaceId, conversationId, record);
  if (synced && !synced.synced) throw new ConflictError('conversationId', `the conversation's branch could not be brought over from its checkout: ${synced.reason}`);
  const found = await tryGit(['rev-parse', '--verify', '--quiet'], { cwd: record.repoPath, operands: [`refs/heads/${record.branch}^{commit}`] });
  if (!found) throw new ConflictError('conversationId', `the repository has no branch ${record.branch}`);
  const sha = found.stdout.trim();
  const ahead = (await runGit(['rev-list', '--count'], { cwd: record.repoPath, operands: [`${record.baseSha}..${sha}`] })).stdout.trim();
  if (ahead === '0') throw new ConflictError('conversationId', `${record.branch} has no commits beyond the commit it started from (${record.baseSha.slice(0, 12)}); there is nothing to publish or merge`);
  return { conversation, space, record, branch: record.branch, sha };
}
