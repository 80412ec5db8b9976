import { z } from 'zod';
import { IsoTime } from './common.js';

/** Run lifecycle (HAR-6). `queued` and `succeeded`-like endings exist on runs, never on agents (AG-3). */
export const RunState = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
export type RunState = z.infer<typeof RunState>;

/** Liveness from the watchdog (AG-5): how a run in progress is faring, or how it ended. */
export const RunLiveness = z.enum(['ok', 'blocked', 'stalled', 'looping', 'failed', 'dead']);
export type RunLiveness = z.infer<typeof RunLiveness>;

export const Run = z.object({
  id: z.string(),
  agentId: z.string(),
  spaceId: z.string().nullable(),
  conversationId: z.string().nullable(),
  parentRunId: z.string().nullable(),
  state: RunState,
  liveness: RunLiveness,
  deliverableFailed: z.boolean(),
  error: z.string().nullable(),
  createdAt: IsoTime,
  startedAt: IsoTime.nullable(),
  endedAt: IsoTime.nullable(),
  /** The mode and autonomy the run started with; a turn keeps them to its end (MODE-2, RLY-9). */
  mode: z.string().nullable(),
  autonomy: z.string().nullable(),
  model: z.string().nullable(),
  depth: z.number(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheWriteTokens: z.number() }),
  costUsd: z.number(),
  sandbox: z.string().nullable(),
});
export type Run = z.infer<typeof Run>;
