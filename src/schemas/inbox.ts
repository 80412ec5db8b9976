import { z } from 'zod';
import { Approval } from './approval.js';
import { BudgetAlert } from './budget.js';
import { IsoTime } from './common.js';
import { Orchestration } from './orchestration.js';
import { Plan } from './plan.js';
import { Question } from './question.js';

/** What every waiting item says, whatever its kind: enough to count it, name it and place it in the sidebar. */
const WaitingItemBase = {
  /** The id of the approval, question, plan, orchestration or budget alert itself (what its buttons act on). */
  id: z.string(),
  title: z.string(),
  spaceId: z.string().nullable(),
  conversationId: z.string().nullable(),
  createdAt: IsoTime,
};

/**
 * One decision that waits for a person (POL-7, PLAN-3, ORC-2, BUD-1, CHG-2), with the record its card
 * needs, so the Inbox and its badge come from one read. A forge publication waiting for its approval
 * is its own kind (the approval it waits on is carried) so the Inbox can call it what it is.
 */
export const InboxItem = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('approval'), ...WaitingItemBase, approval: Approval }),
  z.object({ kind: z.literal('publication'), ...WaitingItemBase, approval: Approval }),
  z.object({ kind: z.literal('question'), ...WaitingItemBase, question: Question }),
  z.object({ kind: z.literal('plan'), ...WaitingItemBase, plan: Plan }),
  z.object({ kind: z.literal('orchestration'), ...WaitingItemBase, orchestration: Orchestration }),
  z.object({ kind: z.literal('budget'), ...WaitingItemBase, alert: BudgetAlert }),
]);
export type InboxItem = z.infer<typeof InboxItem>;
export type InboxItemKind = InboxItem['kind'];

/** A conversation where a run is queued or running now. */
export const RunningPlace = z.object({ spaceId: z.string().nullable(), conversationId: z.string() });
export type RunningPlace = z.infer<typeof RunningPlace>;

/** The Inbox: everything waiting for a person, oldest first, and where runs are running (the sidebar's marks). */
export const Inbox = z.object({ items: z.array(InboxItem), running: z.array(RunningPlace) });
export type Inbox = z.infer<typeof Inbox>;
