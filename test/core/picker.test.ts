import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTONOMY_LEVELS, MODES, PICKER_VALUES, nextPickerValue, pickerToSpaceMode, spaceModeToPicker, type PickerValue } from '../../src/core/index.js';

describe('composer picker mapping (§0, MODE-6)', () => {
  it('§0: Agent, Ask, Autopilot fix chat and the autonomy level', () => {
    expect(pickerToSpaceMode('Agent', 'askFirst')).toEqual({ mode: 'chat', autonomy: 'actWithApproval' });
    expect(pickerToSpaceMode('Ask', 'actFreely')).toEqual({ mode: 'chat', autonomy: 'askFirst' });
    expect(pickerToSpaceMode('Autopilot', 'proposeOnly')).toEqual({ mode: 'chat', autonomy: 'actFreely' });
  });

  it('§0: Plan and Orchestrate keep the space autonomy', () => {
    for (const autonomy of AUTONOMY_LEVELS) {
      expect(pickerToSpaceMode('Plan', autonomy)).toEqual({ mode: 'plan', autonomy });
      expect(pickerToSpaceMode('Orchestrate', autonomy)).toEqual({ mode: 'orchestrate', autonomy });
    }
  });

  it('MODE-6: review is never pickable and maps back to no picker value', () => {
    expect(PICKER_VALUES as readonly string[]).not.toContain('Review');
    for (const autonomy of AUTONOMY_LEVELS) expect(spaceModeToPicker('review', autonomy)).toBeNull();
  });

  it('maps the space state back to the picker value', () => {
    expect(spaceModeToPicker('chat', 'actWithApproval')).toBe('Agent');
    expect(spaceModeToPicker('chat', 'askFirst')).toBe('Ask');
    expect(spaceModeToPicker('chat', 'actFreely')).toBe('Autopilot');
    expect(spaceModeToPicker('chat', 'proposeOnly')).toBeNull();
    expect(spaceModeToPicker('plan', 'actFreely')).toBe('Plan');
    expect(spaceModeToPicker('orchestrate', 'askFirst')).toBe('Orchestrate');
  });

  it('§0: round trip picker → space → picker is the identity, whatever the current autonomy', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PICKER_VALUES), fc.constantFrom(...AUTONOMY_LEVELS), (value, autonomy) => {
        const state = pickerToSpaceMode(value, autonomy);
        expect(spaceModeToPicker(state.mode, state.autonomy)).toBe(value);
      }),
    );
  });

  it('§0: round trip space → picker → space is the identity wherever a picker value exists', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODES), fc.constantFrom(...AUTONOMY_LEVELS), (mode, autonomy) => {
        const value = spaceModeToPicker(mode, autonomy);
        if (value !== null) expect(pickerToSpaceMode(value, autonomy)).toEqual({ mode, autonomy });
      }),
    );
  });

  it('MODE-4: Shift+Tab cycles through every picker value', () => {
    const seen = new Set<string>();
    let value: PickerValue = PICKER_VALUES[0];
    for (let step = 0; step < PICKER_VALUES.length; step += 1) {
      seen.add(value);
      value = nextPickerValue(value);
    }
    expect(value).toBe(PICKER_VALUES[0]);
    expect(seen.size).toBe(PICKER_VALUES.length);
  });
});
