import type { AutonomyLevel, Mode } from './modes.js';

/** The composer picker's values (§0, RLY-1). Review is never among them (MODE-6). */
export const PICKER_VALUES = ['Agent', 'Ask', 'Autopilot', 'Plan', 'Orchestrate'] as const;

/** One picker value. */
export type PickerValue = (typeof PICKER_VALUES)[number];

/** What a space stores for a picker choice: the mode and the autonomy dial (§0). */
export interface SpaceModeState {
  readonly mode: Mode;
  readonly autonomy: AutonomyLevel;
}

/**
 * The one mapping table (§0): a picker value fixes the mode and either fixes the autonomy level or keeps
 * the space's current one (`null`). Both directions below read only this table.
 */
const PICKER_TABLE: ReadonlyArray<{ value: PickerValue; mode: Mode; autonomy: AutonomyLevel | null }> = [
  { value: 'Agent', mode: 'chat', autonomy: 'actWithApproval' },
  { value: 'Ask', mode: 'chat', autonomy: 'askFirst' },
  { value: 'Autopilot', mode: 'chat', autonomy: 'actFreely' },
  { value: 'Plan', mode: 'plan', autonomy: null },
  { value: 'Orchestrate', mode: 'orchestrate', autonomy: null },
];

/**
 * Picker value → the space's (mode, autonomy) (§0): Agent = (chat, actWithApproval), Ask = (chat,
 * askFirst), Autopilot = (chat, actFreely), Plan = (plan, keep), Orchestrate = (orchestrate, keep).
 */
export function pickerToSpaceMode(value: PickerValue, currentAutonomy: AutonomyLevel): SpaceModeState {
  const row = PICKER_TABLE.find((entry) => entry.value === value);
  if (!row) throw new Error(`unknown picker value ${JSON.stringify(value)}`);
  return { mode: row.mode, autonomy: row.autonomy ?? currentAutonomy };
}

/**
 * The space's (mode, autonomy) → the picker value to show, or `null` when the picker cannot represent
 * the state: review (read-only for users, MODE-6) and chat with `proposeOnly` (a dial setting only
 * space settings can choose; the UI shows the dial instead of a picker value).
 */
export function spaceModeToPicker(mode: Mode, autonomy: AutonomyLevel): PickerValue | null {
  const row =
    PICKER_TABLE.find((entry) => entry.mode === mode && entry.autonomy === autonomy) ??
    PICKER_TABLE.find((entry) => entry.mode === mode && entry.autonomy === null);
  return row ? row.value : null;
}

/** The next picker value for Shift+Tab (MODE-4): cycles through the picker in display order. */
export function nextPickerValue(value: PickerValue): PickerValue {
  const index = PICKER_VALUES.indexOf(value);
  return PICKER_VALUES[(index + 1) % PICKER_VALUES.length]!;
}
