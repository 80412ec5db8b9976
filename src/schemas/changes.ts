import { z } from 'zod';
import { IsoTime } from './common.js';

/** How a file differs between the two sides of a conversation's changes (CHG-1). */
export const CHANGE_STATUSES = ['added', 'removed', 'modified', 'renamed', 'copied', 'typeChanged'] as const;

/** One changed file. Paths are the agent's (hostile, SEC-2): shown and sent back as data, never as an option. */
export const ChangedFile = z.object({
  /** The path after the change (for a removed file, the path it had). */
  path: z.string(),
  /** The path before a rename or copy; null otherwise. */
  oldPath: z.string().nullable(),
  status: z.enum(CHANGE_STATUSES),
  binary: z.boolean(),
  /** Lines added and removed; 0 and 0 for a binary file. */
  additions: z.number().int(),
  deletions: z.number().int(),
  /** Sizes in bytes before and after, for binary files (null where the side does not exist, or for text files). */
  sizeBefore: z.number().int().nullable(),
  sizeAfter: z.number().int().nullable(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** A top-level turn of the conversation and whether it changed the checkout (it took a checkpoint). */
export const ChangeTurn = z.object({
  /** 1-based, in the order the turns began; the number `--turn` and `?turn=` take. */
  number: z.number().int(),
  runId: z.string(),
  startedAt: IsoTime,
  /** The checkout's state before the turn's first change; null when the turn changed nothing. */
  checkpoint: z.string().nullable(),
});
export type ChangeTurn = z.infer<typeof ChangeTurn>;

/** The changes of a conversation, in total or for one turn, with one page of files. */
export const ConversationChanges = z.object({
  conversationId: z.string(),
  /** `cc/<conversation>`: the branch the work is on. */
  branch: z.string(),
  /** The commit the conversation's branch started from. */
  baseSha: z.string(),
  /** The turn shown, or null for the total since the base. */
  turn: z.number().int().nullable(),
  /** The object the changes are counted from (a commit). Send it back to read a file's diff. */
  from: z.string(),
  /** The object they are counted to: a checkpoint commit, or a tree of the checkout as it is now (uncommitted work included). */
  to: z.string(),
  /** True when `to` is the checkout now, so a run may still be changing it. */
  live: z.boolean(),
  /** With `live`: how many files in the checkout differ from the branch's last commit — work a review of the branch would not see. */
  uncommittedFiles: z.number().int().nullable(),
  totals: z.object({ files: z.number().int(), additions: z.number().int(), deletions: z.number().int(), binary: z.number().int() }),
  /** One page of files, sorted by path. */
  files: z.array(ChangedFile),
  page: z.object({ offset: z.number().int(), limit: z.number().int(), total: z.number().int() }),
  turns: z.array(ChangeTurn),
});
export type ConversationChanges = z.infer<typeof ConversationChanges>;

export const ChangesQuery = z.strictObject({
  /** A turn's number (1-based); absent for the total since the base. */
  turn: z.coerce.number().int().min(1).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

const ObjectId = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'must be a full commit or tree id (hex) as the changes listing gave it');

/** A path as the listing gave it: any character a file name may hold (newlines too), but no NUL, which no file name holds. */
const FilePath = z.string().min(1).max(4096).refine((path) => !path.includes('\0'), 'must not contain a NUL character');

export const ChangeDiffQuery = z.strictObject({
  from: ObjectId,
  to: ObjectId,
  /** One file's path after the change; absent for the whole diff (capped). */
  path: FilePath.optional(),
  /** Its path before a rename or copy. */
  oldPath: FilePath.optional(),
});

/** A unified diff, cut at a size the browser and the terminal handle; `truncated` says where and why. */
export const ChangeDiff = z.object({
  diff: z.string(),
  binary: z.boolean(),
  /** Why the diff was cut ("over 262144 bytes", "over 4000 lines"), or null when whole. */
  truncated: z.string().nullable(),
  lines: z.number().int(),
});
export type ChangeDiff = z.infer<typeof ChangeDiff>;

export const ChangesReviewBody = z.strictObject({
  /** Reviewer agents to dispatch at once; omit to open the review without dispatching. */
  reviewers: z.array(z.string().min(1).max(63)).max(16).optional(),
});

export const ChangesReview = z.object({
  reviewId: z.string(),
  created: z.boolean(),
  /** What the review covers: the branch as brought into the user's repository. */
  head: z.string(),
  headSha: z.string(),
  /** Files changed in the checkout but not committed on the branch: not in the review. */
  uncommittedFiles: z.number().int(),
});
export type ChangesReview = z.infer<typeof ChangesReview>;
