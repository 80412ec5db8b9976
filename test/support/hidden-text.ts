/** Ways hostile text hides from a reader but not from a model (SEC-12), for tests that plant it. */

/** Text in Unicode tag characters: invisible, one tag (U+E0000 + code) per ASCII character. */
export const inTagCharacters = (text: string): string => [...text].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');

/** Text as a run of variation selectors, one per UTF-8 byte (VS1–16 are 0–15, VS17–256 are 16–255). */
export const inVariationSelectors = (text: string): string =>
  [...new TextEncoder().encode(text)].map((byte) => String.fromCodePoint(byte < 16 ? 0xfe00 + byte : 0xe0100 + byte - 16)).join('');
