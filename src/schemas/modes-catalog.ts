import { z } from 'zod';
import { PickerValue, AutonomySchema, ModeSchema } from './space.js';

/**
 * `GET /api/modes` (CAP-1): each mode with its capability profile, guard preset and completion
 * contract (their shapes belong to src/core and are passed through as they are), the autonomy levels
 * and the picker mapping (§0) — the one mapping table, `src/core/picker.ts`, rendered for clients.
 */
export const ModesCatalog = z.object({
  modes: z.array(
    z.object({
      mode: ModeSchema,
      label: z.string(),
      userSelectable: z.boolean(),
      profile: z.unknown(),
      guardPreset: z.unknown(),
      completionContract: z.unknown(),
    }),
  ),
  autonomyLevels: z.array(z.object({ level: AutonomySchema, label: z.string() })),
  picker: z.array(z.object({ value: PickerValue, mode: ModeSchema, autonomy: AutonomySchema.nullable() })),
});
export type ModesCatalog = z.infer<typeof ModesCatalog>;
