import { z } from 'zod';
import { IsoTime } from './common.js';

/**
 * A project: the goal an orchestration's tickets serve (ORC-4's materializer creates one per
 * orchestration). The tickets board groups tickets by it; the links lead to the orchestration's
 * conversation (its proposal card) and to its pipeline run.
 */
export const Project = z.object({
  id: z.string(),
  name: z.string(),
  goal: z.string(),
  teamId: z.string().nullable(),
  orchestrationId: z.string().nullable(),
  conversationId: z.string().nullable(),
  pipelineRunId: z.string().nullable(),
  createdAt: IsoTime,
});
export type Project = z.infer<typeof Project>;
