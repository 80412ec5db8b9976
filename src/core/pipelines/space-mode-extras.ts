/** The modes a pipeline may pin on a room it opens (MODE-5). */
export const PINNABLE_SPACE_MODES = ['chat', 'review', 'plan'] as const;
export type PinnableSpaceMode = (typeof PINNABLE_SPACE_MODES)[number];

/** `messaging.createSpace`'s body default when `extras.mode` is absent or not an exact match (MODE-5). */
export const CREATE_SPACE_DEFAULT_MODE: PinnableSpaceMode = 'review';

/**
 * MODE-5: the room's mode is `extras['mode']` only when the key is exactly `mode` and the value is
 * exactly one of chat/review/plan. Anything else (`orchestrate`, `Chat`, `conversationMode`,
 * `dispatchMode`, a number…) is ignored and the default `review` is used.
 */
export function effectiveSpaceMode(extras: Readonly<Record<string, unknown>>): PinnableSpaceMode {
  const value = Object.prototype.hasOwnProperty.call(extras, 'mode') ? extras['mode'] : undefined;
  return typeof value === 'string' && (PINNABLE_SPACE_MODES as readonly string[]).includes(value) ? (value as PinnableSpaceMode) : CREATE_SPACE_DEFAULT_MODE;
}

/**
 * What the validator warns about (the engine ignores them silently, MODE-5): an `extras.mode` that
 * is not an exact match, and keys that look like an attempt to set the mode under another name.
 */
export function ignoredModeExtras(extras: Readonly<Record<string, unknown>>): Array<{ key: string; message: string }> {
  const found: Array<{ key: string; message: string }> = [];
  for (const [key, value] of Object.entries(extras)) {
    if (key === 'mode') {
      if (!(typeof value === 'string' && (PINNABLE_SPACE_MODES as readonly string[]).includes(value))) {
        found.push({ key, message: `extras.mode ${JSON.stringify(value)} is not exactly one of chat, review, plan: it is ignored and the room opens in ${CREATE_SPACE_DEFAULT_MODE}` });
      }
    } else if (/mode/i.test(key)) {
      found.push({ key, message: `extras.${key} is not a recognised key (only extras.mode pins the mode): it is ignored and the room opens in ${effectiveSpaceMode(extras)}` });
    }
  }
  return found;
}
