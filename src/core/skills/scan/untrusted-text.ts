/**
 * The normalized view of untrusted text (SEC-12): what the content rules read instead of the raw
 * characters, so that text which looks harmless to a reviewer but reads differently to a model —
 * or to a pattern — is judged by what it says.
 *
 * A model reads code points a screen never draws: Unicode tag characters (U+E0020–E007E spell out
 * ASCII one for one), variation selectors (256 of them, enough to carry one byte each), zero-width
 * and bidi controls, and fillers that render as blank space. Patterns are fooled by them too:
 * `ig<U+200B>nore` is not `ignore`, and fullwidth `ｉｇｎｏｒｅ` is not either until NFKC folds it.
 */

/**
 * Combining marks drawn across the letter before them (strokes, slashes, rings): `i<U+0336>gnore`
 * reads to a reviewer as struck-out text and to a pattern as no word at all, while a model reads
 * the word through the mark. U+0334–0338 and the symbol overlays U+20D2–20D3, 20D8–20DA, 20E5, 20EA.
 */
const OVERLAY_MARKS = '\\u0334-\\u0338\\u20D2\\u20D3\\u20D8-\\u20DA\\u20E5\\u20EA';

/**
 * Every character a reader cannot see or that reorders what it sees: the Unicode
 * Default_Ignorable_Code_Point property (zero-width characters, tag characters, variation
 * selectors, soft hyphen, Hangul fillers, invisible operators, …), the bidi controls (some of which
 * are not default-ignorable, e.g. U+061C is, U+200E/F are), and fillers that render as blank space
 * without being default-ignorable (U+2800 braille blank). With them, the characters that disguise a
 * word rather than hide it: private-use code points (no standard meaning or glyph, so a font draws
 * whatever it likes and `ig<U+E000>nore` is no word to a pattern) and the overlay marks above. A BOM
 * at the very start of a file is the one allowed exception, and callers skip it themselves.
 */
export const HIDDEN_CHARACTER = new RegExp(`[\\p{Default_Ignorable_Code_Point}\\p{Bidi_Control}\\u2800\\p{Co}${OVERLAY_MARKS}]`, 'u');
const HIDDEN_CHARACTERS = new RegExp(HIDDEN_CHARACTER.source, 'gu');
/** The overlay marks, removed before NFKC too: it composes some of them with the sign before (`=` + U+0338 is `≠`). */
const OVERLAY_MARK_RUN = new RegExp(`[${OVERLAY_MARKS}]+`, 'gu');

/** True when the text is plain ASCII: nothing in it can be hidden, folded or decoded. */
function isAscii(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included
  return !/[^\u0000-\u007f]/.test(text);
}

/** A run of Unicode tag characters (U+E0000–E007F): invisible, and U+E0020–E007E map one for one to ASCII. */
const TAG_RUN = /[\u{E0000}-\u{E007F}]+/gu;

/**
 * A run of variation selectors long enough to be a payload rather than an emoji presentation
 * selector: VS1–VS16 (U+FE00–FE0F) and VS17–VS256 (U+E0100–E01EF) are 256 code points, so a run of
 * them can carry arbitrary bytes. A legitimate emoji uses one after a base character.
 */
const SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{4,}/gu;

/** The ASCII text a run of tag characters spells (tags outside U+E0020–E007E, like the flag terminator, spell nothing). */
export function decodeTagCharacters(run: string): string {
  let decoded = '';
  for (const character of run) {
    const code = character.codePointAt(0)! - 0xe0000;
    if (code >= 0x20 && code <= 0x7e) decoded += String.fromCharCode(code);
  }
  return decoded;
}

/** The bytes a run of variation selectors carries (VS1–16 are 0–15, VS17–256 are 16–255), read as UTF-8. */
export function decodeSelectorRun(run: string): string {
  const bytes: number[] = [];
  for (const character of run) {
    const code = character.codePointAt(0)!;
    bytes.push(code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16);
  }
  // Control characters decoded from a payload stay out of the view: they would shift line numbers.
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return new TextDecoder('utf-8').decode(new Uint8Array(bytes)).replace(/[\u0000-\u001f\u007f]/g, ' ');
}

/**
 * The text as the content rules read it: hidden payloads decoded into plain view (each surrounded
 * by spaces so it reads as words of its own), then NFKC (fullwidth, mathematical and other
 * compatibility forms folded to their plain letters), then every hidden character left removed (so
 * `ig<U+200B>nore`, `i<U+0336>gnore` and `ig<U+E000>nore` read `ignore`). Line breaks are kept where they were: findings name real lines.
 */
export function normalizeUntrustedText(text: string): string {
  // ASCII has nothing to decode, fold or remove: most files of most skills take this way out.
  if (isAscii(text)) return text;
  const decoded = text.replace(TAG_RUN, (run) => ` ${decodeTagCharacters(run)} `).replace(SELECTOR_RUN, (run) => ` ${decodeSelectorRun(run)} `);
  return decoded.replace(OVERLAY_MARK_RUN, '').normalize('NFKC').replace(HIDDEN_CHARACTERS, '');
}

/**
 * The text with every hidden character replaced by a visible `[U+XXXX]` marker (SEC-12): for
 * material a model must read as it is — a diff under review, where a hidden character is itself a
 * finding — but whose invisible characters must not speak to the model unseen. Line breaks, and
 * so line numbers, are kept; a BOM opening the text is dropped.
 */
export function revealHiddenCharacters(text: string): string {
  if (isAscii(text)) return text;
  return text.replace(/^\uFEFF/, '').replace(HIDDEN_CHARACTERS, (character) => `[U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}
