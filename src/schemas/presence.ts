import { z } from 'zod';
import { IsoTime } from './common.js';

/** AG-4: a coarse live picture of each agent, synthesized from run events. */
export const PresenceStatus = z.enum(['idle', 'thinking', 'executing', 'blocked', 'done']);
export type PresenceStatus = z.infer<typeof PresenceStatus>;

export const Presence = z.object({
  agentId: z.string(),
  status: PresenceStatus,
  runId: z.string().nullable(),
  since: IsoTime,
});
export type Presence = z.infer<typeof Presence>;

/** AG-4, people: one operator's browser window and where it is. */
export const OperatorHere = z.object({
  clientId: z.string(),
  operatorId: z.string(),
  spaceId: z.string().nullable(),
  conversationId: z.string().nullable(),
  since: IsoTime,
});
export type OperatorHere = z.infer<typeof OperatorHere>;

/** `GET …/presence/operators` and the `presence.operators` event: every window open in the workspace. */
export const OperatorPresenceList = z.object({
  operators: z.array(OperatorHere),
  /**
   * When the list was read: an answer is stamped before its read, an event after, so a client keeps a
   * newer event over an answer that lands late (the heartbeat's answer is written into the same cache).
   */
  updatedAt: IsoTime.optional(),
});
export type OperatorPresenceList = z.infer<typeof OperatorPresenceList>;

/** `POST …/presence/here`: this window is at this place now (or keeps being). */
export const OperatorHereBody = z.strictObject({
  clientId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8–64 letters, digits, - or _'),
  spaceId: z.string().min(1).max(200).nullable().optional(),
  conversationId: z.string().min(1).max(200).nullable().optional(),
});
export type OperatorHereBody = z.infer<typeof OperatorHereBody>;

/** `POST …/presence/leave`: this window is gone. */
export const OperatorLeaveBody = z.strictObject({ clientId: OperatorHereBody.shape.clientId });
