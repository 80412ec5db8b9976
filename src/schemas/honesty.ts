import { z } from 'zod';
import { ModeSchema } from './space.js';

export const EnforcementLevel = z.enum(['enforced', 'partial', 'none']);
export type EnforcementLevel = z.infer<typeof EnforcementLevel>;

export const HostSandbox = z.enum(['bubblewrap', 'seatbelt', 'none']);
export type HostSandbox = z.infer<typeof HostSandbox>;

/** One cell of the honesty matrix (ADP-1): a capability, its level, why, and the test that shows it. */
export const HonestyRow = z.object({
  key: z.string(),
  capability: z.string(),
  mode: ModeSchema.optional(),
  host: HostSandbox.optional(),
  level: EnforcementLevel,
  detail: z.string(),
  testedBy: z.string(),
});
export type HonestyRow = z.infer<typeof HonestyRow>;

/** `GET /api/honesty-matrix`: per adapter its rows, and which sandbox this host gives Claude Code runs. */
export const HonestyMatrix = z.object({
  adapters: z.array(z.object({ id: z.string(), label: z.string(), rows: z.array(HonestyRow) })),
  host: z.object({ sandbox: HostSandbox, detail: z.string() }),
});
export type HonestyMatrix = z.infer<typeof HonestyMatrix>;
