import { AUTONOMY_LABELS, DEFAULT_AUTONOMY, isAutonomyLevel, isMode, MODE_LABELS } from '@server/core/modes';
import { nextPickerValue, PICKER_VALUES, spaceModeToPicker } from '@server/core/picker';
import type { PickerValue, Space } from '../api/types';

/*
 * The picker values, their (mode, autonomy) mapping and the mode labels exist once, in src/core/picker.ts
 * and src/core/modes.ts (§0, MODE-3). Those two files are pure data and functions with no imports
 * besides each other's types, so the web bundles them as they are (lint allows only such files).
 */
export { AUTONOMY_LABELS, MODE_LABELS, PICKER_VALUES };

export const PICKER_HINTS: Record<PickerValue, string> = {
  Agent: 'Acts; gated actions ask for approval',
  Ask: 'Asks before every action above read level',
  Autopilot: 'Acts freely unless a rule denies',
  Plan: 'Read-only research, ends with a plan to approve',
  Orchestrate: 'Proposes a plan for a whole team',
};

/** Shift+Tab (MODE-4): the next value, cycling; the first one when none is shown. */
export function nextPicker(value: PickerValue | null): PickerValue {
  return value ? nextPickerValue(value) : PICKER_VALUES[0];
}

export function isPickerValue(value: unknown): value is PickerValue {
  return typeof value === 'string' && (PICKER_VALUES as readonly string[]).includes(value);
}

const LAST_PICKER_KEY = 'cc.lastPicker';

/** RLY-2: a new conversation starts with the mode last chosen in this browser, else Agent. */
export function lastChosenPicker(): PickerValue {
  try {
    const stored = localStorage.getItem(LAST_PICKER_KEY);
    return isPickerValue(stored) ? stored : 'Agent';
  } catch {
    return 'Agent';
  }
}

export function rememberPicker(value: PickerValue): void {
  try {
    localStorage.setItem(LAST_PICKER_KEY, value);
  } catch {
    // storage unavailable: the choice still applies to the space
  }
}

/** How a space's mode reads in the UI when no picker value can express it. */
export function spaceModeLabel(space: Pick<Space, 'mode' | 'autonomy' | 'picker'>): string {
  if (space.picker) return space.picker;
  if (space.mode === 'review') return 'Review';
  return `${MODE_LABELS[space.mode]} · ${AUTONOMY_LABELS[space.autonomy]}`;
}

/**
 * The picker value a message's or run's recorded (mode, autonomy) shows as (§0, the core mapping), or
 * null when none fits (review; chat with proposeOnly). No recorded autonomy reads as the dial's default.
 */
export function pickerFor(mode: string | null | undefined, autonomy: string | null | undefined): PickerValue | null {
  if (!isMode(mode)) return null;
  if (autonomy === null || autonomy === undefined) return spaceModeToPicker(mode, DEFAULT_AUTONOMY);
  return isAutonomyLevel(autonomy) ? spaceModeToPicker(mode, autonomy) : null;
}

/** How a message's or run's mode reads: the picker value when there is one, else the mode's label. */
export function modeLabelFor(mode: string | null | undefined, autonomy: string | null | undefined): string | null {
  const picker = pickerFor(mode, autonomy);
  if (picker) return picker;
  if (isMode(mode)) return MODE_LABELS[mode];
  return mode ?? null;
}
