import { z } from 'zod';
import { IsoTime } from './common.js';

export const ApprovalStatus = z.enum(['pending', 'approved', 'rejected', 'expired']);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

export const Approval = z.object({
  id: z.string(),
  kind: z.string(),
  status: ApprovalStatus,
  durable: z.boolean(),
  runId: z.string().nullable(),
  agentId: z.string().nullable(),
  spaceId: z.string().nullable(),
  conversationId: z.string().nullable(),
  title: z.string(),
  request: z.record(z.string(), z.unknown()),
  decidedBy: z.string().nullable(),
  reason: z.string().nullable(),
  remember: z.boolean(),
  createdAt: IsoTime,
  decidedAt: IsoTime.nullable(),
});
export type Approval = z.infer<typeof Approval>;

export const DecideApprovalBody = z.strictObject({
  decision: z.enum(['approve', 'reject']),
  /** Passed to the agent verbatim on rejection (POL-7). */
  reason: z.string().max(10_000).optional(),
  /** "Remember this choice": records a workspace rule for this action's fingerprint (POL-3). */
  remember: z.boolean().optional(),
});
export type DecideApprovalBody = z.infer<typeof DecideApprovalBody>;
