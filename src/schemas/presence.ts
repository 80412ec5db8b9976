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
