import type { ScanFinding, ScanRule } from '../scan-types.js';
import { HIDDEN_CHARACTER } from '../untrusted-text.js';

/** What kind of hidden character a code point is, for the operator reading the report. */
function kindOf(code: number): string {
  if (code >= 0xe0000 && code <= 0xe007f) return 'a tag character: invisible text a model reads as ASCII';
  if ((code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef)) return 'a variation selector, which can carry hidden bytes';
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) return 'a bidirectional control: text reads differently than it runs';
  if (code === 0x3164 || code === 0xffa0 || code === 0x115f || code === 0x1160 || code === 0x2800) return 'a filler that renders as blank space';
  if ((code >= 0xe000 && code <= 0xf8ff) || code >= 0xf0000) return 'a private-use character: no standard meaning, a font draws it as anything';
  if (isOverlayMark(code)) return 'a combining overlay mark: drawn across a letter, it disguises the word a model still reads';
  return 'a default-ignorable character nothing renders';
}

/** The combining marks drawn across a letter (U+0334–0338, U+20D2–20D3, U+20D8–20DA, U+20E5, U+20EA). */
function isOverlayMark(code: number): boolean {
  return (code >= 0x0334 && code <= 0x0338) || code === 0x20d2 || code === 0x20d3 || (code >= 0x20d8 && code <= 0x20da) || code === 0x20e5 || code === 0x20ea;
}

/**
 * SKL-3 `invisible-characters`, SEC-12: any character a reader cannot see — every default-ignorable
 * code point (zero-width characters, tag characters, variation selectors, fillers), every bidi
 * control, the braille blank — or that disguises a word — private-use characters, combining
 * overlay marks — anywhere in a text file, the raw text as it will reach a model.
 * One finding per line, naming the first such character. A BOM opening the file is allowed.
 */
export const invisibleCharacters: ScanRule = {
  id: 'invisible-characters',
  severity: 'quarantine',
  description: 'contains invisible, format, bidirectional-control, private-use or overlay characters',
  checkText(file): ScanFinding[] {
    const findings: ScanFinding[] = [];
    file.raw.split(/\r?\n|\r/).forEach((line, index) => {
      const match = HIDDEN_CHARACTER.exec(index === 0 ? line.replace(/^\uFEFF/, '') : line);
      if (match) {
        const codePoint = match[0].codePointAt(0)!;
        const code = codePoint.toString(16).toUpperCase().padStart(4, '0');
        findings.push({ ruleId: 'invisible-characters', severity: 'quarantine', file: file.path, line: index + 1, message: `contains the ${isOverlayMark(codePoint) ? 'overlay' : 'invisible'} character U+${code} (${kindOf(codePoint)})` });
      }
    });
    return findings;
  },
};
