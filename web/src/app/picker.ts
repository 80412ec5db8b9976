import type { Autonomy, Mode, PickerValue, Space } from '../api/types';

/** The composer's picker values in display order (§0, RLY-1). Review is never offered (MODE-6). */
export const PICKER_VALUES: readonly PickerValue[] = ['Agent', 'Ask', 'Autopilot', 'Plan', 'Orchestrate'];

export const PICKER_HINTS: Record<PickerValue, string> = {
  Agent: 'Acts; gated actions ask for approval',
  Ask: 'Asks before every action above read level',
  Autopilot: 'Acts freely unless a rule denies',
  Plan: 'Read-only research, ends with a plan to approve',
  Orchestrate: 'Proposes a plan for a whole team',
};

/** `chat` is shown as "Agent", never "Chat" (MODE-3). */
export const MODE_LABELS: Record<Mode, string> = { chat: 'Agent', review: 'Review', plan: 'Plan', orchestrate: 'Orchestrate' };

export const AUTONOMY_LABELS: Record<Autonomy, string> = {
  proposeOnly: 'Propose only',
  askFirst: 'Ask first',
  actWithApproval: 'Act with approval',
  actFreely: 'Act freely',
};

/** Shift+Tab (MODE-4): the next value, cycling. */
export function nextPicker(value: PickerValue | null): PickerValue {
  const index = value ? PICKER_VALUES.indexOf(value) : -1;
  return PICKER_VALUES[(index + 1) % PICKER_VALUES.length]!;
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
 * The picker value a (mode, autonomy) pair shows as (§0), or null when none fits (review; chat with
 * proposeOnly). Mirrors src/core/picker.ts.
 */
export function pickerFor(mode: string | null | undefined, autonomy: string | null | undefined): PickerValue | null {
  if (mode === 'plan') return 'Plan';
  if (mode === 'orchestrate') return 'Orchestrate';
  if (mode !== 'chat') return null;
  if (autonomy === 'askFirst') return 'Ask';
  if (autonomy === 'actFreely') return 'Autopilot';
  if (autonomy === 'actWithApproval' || autonomy === null || autonomy === undefined) return 'Agent';
  return null;
}

/** How a message's or run's mode reads: the picker value when there is one, else the mode's label. */
export function modeLabelFor(mode: string | null | undefined, autonomy: string | null | undefined): string | null {
  const picker = pickerFor(mode, autonomy);
  if (picker) return picker;
  if (mode && mode in MODE_LABELS) return MODE_LABELS[mode as Mode];
  return mode ?? null;
}
