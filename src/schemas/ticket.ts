import { z } from 'zod';
import { IsoTime } from './common.js';

export const TICKET_STATUSES = ['open', 'inProgress', 'blocked', 'done', 'failed', 'cancelled'] as const;

export const TicketComment = z.object({
  id: z.string(),
  ticketId: z.string(),
  author: z.object({ kind: z.string(), id: z.string() }),
  body: z.string(),
  createdAt: IsoTime,
});
export type TicketComment = z.infer<typeof TicketComment>;

export const Ticket = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.string(),
  dependsOn: z.array(z.string()),
  assigneeAgentId: z.string().nullable(),
  /** AG-4: the person who owns it (a ticket is owned by an agent or a person, never both). */
  assigneePersonId: z.string().nullable(),
  planId: z.string().nullable(),
  nodeKey: z.string().nullable(),
  projectId: z.string().nullable(),
  reviewId: z.string().nullable(),
  findingId: z.string().nullable(),
  createdBy: z.object({ kind: z.string(), id: z.string() }).nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Ticket = z.infer<typeof Ticket>;

/**
 * A ticket as the board reads it: `dependsOn` names ticket ids, and `waitingOn` the ones among them
 * that are not done yet — a finished dependency no longer blocks (the board's "waiting on N").
 */
export const TicketWithBlockers = Ticket.extend({
  waitingOn: z.array(z.string()).describe('Ids of the tickets this one depends on that are not done yet'),
});
export type TicketWithBlockers = z.infer<typeof TicketWithBlockers>;
