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
