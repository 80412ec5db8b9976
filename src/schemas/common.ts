import { z } from 'zod';

/** The error body of every failed request: a stable code, a message, and the field at fault. */
export const ApiError = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
export type ApiError = z.infer<typeof ApiError>;

/** Slug used for agent names and skill directories: lowercase, digits and dashes. */
export const Slug = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be a lowercase slug: letters, digits and dashes, not starting or ending with a dash');

export const IsoTime = z.string().describe('ISO-8601 UTC timestamp');
