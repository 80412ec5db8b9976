import { z } from 'zod';
import { ModeSchema } from './space.js';

/** How much is enforced; `notApplicable` (shown "n/a") where the capability does not exist on the transport. */
export const EnforcementLevel = z.enum(['enforced', 'partial', 'none', 'notApplicable']);
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

/** What one transport declares it supports (src/adapters/transport-capabilities.ts, ADP-1). */
export const TransportCapabilities = z.object({
  adapterId: z.string(),
  label: z.string(),
  steer: z.boolean(),
  pauseResume: z.boolean(),
  cancel: z.boolean(),
  subagents: z.enum(['childRuns', 'inRunner']),
  nativeTools: z.boolean(),
  gates: z.object({
    toolSurface: z.boolean(),
    shellCommands: z.boolean(),
    fileWrites: z.boolean(),
    reads: z.boolean(),
    productTools: z.boolean(),
    pushes: z.boolean(),
  }),
  completionContract: z.array(ModeSchema),
  structuralModes: z.array(ModeSchema),
  sandbox: z.boolean(),
  skills: z.enum(['scannedOnly', 'fedUnbounded', 'hostSkillTool', 'unfed']),
  relayModes: z.enum(['honoured', 'none']).optional(),
  /** TRUTH-1: the agent fields and space settings the transport applies, each with how; the rest are refused. */
  honours: z.object({
    agentFields: z.record(z.string(), z.string()),
    effortDefaultModelId: z.string().optional(),
    spaceSettings: z.record(z.string(), z.string()),
  }),
});
export type TransportCapabilities = z.infer<typeof TransportCapabilities>;

/**
 * `GET /api/honesty-matrix`: per adapter its rows, the declarations of the transports this server
 * runs (the rows are checked against them), and which sandbox this host gives Claude Code runs.
 */
export const HonestyMatrix = z.object({
  adapters: z.array(z.object({ id: z.string(), label: z.string(), rows: z.array(HonestyRow) })),
  transports: z.array(TransportCapabilities),
  host: z.object({ sandbox: HostSandbox, detail: z.string() }),
});
export type HonestyMatrix = z.infer<typeof HonestyMatrix>;
