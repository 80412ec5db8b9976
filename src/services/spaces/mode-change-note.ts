import { AUTONOMY_LABELS, MODE_LABELS, type AutonomyLevel, type Mode } from '../../core/modes.js';
import { spaceModeToPicker, type PickerValue } from '../../core/picker.js';

/**
 * Why a space's mode or autonomy dial changed (MODE-4, POL-5). A change nobody asked for in so many
 * words — picking Ask also sets the dial, approving a plan leaves Plan mode — must be said where it
 * happens, so each cause carries what the operator actually did.
 */
export type SpaceChangeCause =
  | { kind: 'picker'; picker: PickerValue }
  | { kind: 'planCommand' }
  | { kind: 'planApproved'; goal: string }
  | { kind: 'planExitApproved' }
  | { kind: 'spaceSettings' };

/** Who caused a change: the operator whose request it was (null when the Control Center itself did). */
export interface SpaceChange {
  cause: SpaceChangeCause;
  operatorId: string | null;
}

interface ModeState {
  mode: Mode;
  autonomy: AutonomyLevel;
}

/** The mode as the picker names it: chat is Agent, Ask or Autopilot depending on the dial. */
function modeName(state: ModeState): string {
  return spaceModeToPicker(state.mode, state.autonomy) ?? MODE_LABELS[state.mode];
}

function because(cause: SpaceChangeCause): string {
  switch (cause.kind) {
    case 'picker':
      return `${cause.picker} was picked`;
    case 'planCommand':
      return '/plan was sent';
    case 'planApproved':
      return `the plan “${cause.goal}” was approved`;
    case 'planExitApproved':
      return "the agent's request to leave plan mode was approved";
    case 'spaceSettings':
      return "the space's settings were changed";
  }
}

/**
 * The conversation's line for a change of mode or dial, e.g. "Autonomy set to Ask first (was Act
 * with approval) because Ask was picked." Null when neither changed (nothing to say).
 */
export function modeChangeNote(previous: ModeState, next: ModeState, cause: SpaceChangeCause): string | null {
  const parts: string[] = [];
  if (next.mode !== previous.mode) parts.push(`mode set to ${modeName(next)} (was ${modeName(previous)})`);
  if (next.autonomy !== previous.autonomy) parts.push(`autonomy set to ${AUTONOMY_LABELS[next.autonomy]} (was ${AUTONOMY_LABELS[previous.autonomy]})`);
  if (parts.length === 0) return null;
  const sentence = parts.join(' and ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)} because ${because(cause)}.`;
}
