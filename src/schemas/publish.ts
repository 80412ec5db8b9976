import { z } from 'zod';
import { IsoTime } from './common.js';

/** GitHub's own limits: a pull request's title and body longer than these are refused by the forge. */
export const PULL_REQUEST_TITLE_MAX = 256;
export const PULL_REQUEST_BODY_MAX = 65_536;

/** A branch of the user's repository, as an operator names it (checked again as a ref before git sees it). */
const BranchName = z.string().min(1).max(255);

/** CHG-2: a conversation's pull request as the server knows it. */
export const ConversationPublication = z.object({
  conversationId: z.string(),
  provider: z.string(),
  owner: z.string(),
  repo: z.string(),
  /** The remote of the user's repository the branch is pushed to. */
  remoteName: z.string(),
  headBranch: z.string(),
  baseBranch: z.string(),
  title: z.string(),
  body: z.string(),
  /** The last publish request: awaitingApproval → publishing → published, or rejected / failed. */
  status: z.enum(['awaitingApproval', 'publishing', 'published', 'rejected', 'failed']),
  approvalId: z.string().nullable(),
  error: z.string().nullable(),
  number: z.number().int().nullable(),
  webUrl: z.string().nullable(),
  /** The forge's word: open, closed or merged (null before the first publish went through). */
  prState: z.string().nullable(),
  headSha: z.string().nullable(),
  requestedBy: z.string(),
  publishedAt: IsoTime.nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type ConversationPublication = z.infer<typeof ConversationPublication>;

/** CHG-2: a conversation's branch merged into a branch of the user's repository. */
export const ConversationMerge = z.object({
  id: z.string(),
  conversationId: z.string(),
  targetBranch: z.string(),
  kind: z.enum(['fastForward', 'mergeCommit']),
  previousSha: z.string(),
  sourceSha: z.string(),
  mergedSha: z.string(),
  operatorId: z.string(),
  createdAt: IsoTime,
});
export type ConversationMerge = z.infer<typeof ConversationMerge>;

/** What the publish panel proposes before anything is sent: the forge repository and a written title and body. */
export const PublishDraft = ConversationPublication.pick({ provider: true, owner: true, repo: true, remoteName: true, headBranch: true, baseBranch: true, title: true, body: true });
export type PublishDraft = z.infer<typeof PublishDraft>;

/** Where a conversation's work went (CHG-2). */
export const ConversationDestinations = z.object({
  publication: ConversationPublication.nullable(),
  merges: z.array(ConversationMerge),
});
export type ConversationDestinations = z.infer<typeof ConversationDestinations>;

export const PublishBody = z.strictObject({
  /** Edited by the operator before sending; the written draft when absent. */
  title: z.string().min(1).max(PULL_REQUEST_TITLE_MAX).optional(),
  body: z.string().max(PULL_REQUEST_BODY_MAX).optional(),
  /** The branch the pull request asks to merge into (default: the branch checked out in the user's repository). */
  base: BranchName.optional(),
});
export type PublishBody = z.infer<typeof PublishBody>;

/** An edit of a pending publication's title or body (the approval then shows the edited text). */
export const EditPublicationBody = z
  .strictObject({
    title: z.string().min(1).max(PULL_REQUEST_TITLE_MAX).optional(),
    body: z.string().max(PULL_REQUEST_BODY_MAX).optional(),
  })
  .refine((value) => value.title !== undefined || value.body !== undefined, { message: 'give a title or a body' });
export type EditPublicationBody = z.infer<typeof EditPublicationBody>;

export const MergeBody = z.strictObject({
  /** A branch of the user's repository (not the conversation's own). */
  into: BranchName,
  /** Refuse rather than make a merge commit. */
  ffOnly: z.boolean().optional(),
  /** The target's commit as the operator saw it: a target that moved since is refused (409), never forced. */
  expectedSha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'a full commit id').optional(),
});
export type MergeBody = z.infer<typeof MergeBody>;
