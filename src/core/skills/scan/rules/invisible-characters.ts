import type { ScanFinding, ScanRule } from '../scan-types.js';

/** Zero-width characters and Unicode bidi controls (Trojan Source): text that reads differently than it runs. */
const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\u202A-\u202E\u2066-\u2069\u00AD\u180E]|(?<!^)\uFEFF/u;

/** SKL-3 `invisible-characters`: zero-width and bidi-override characters anywhere in a text file. */
export const invisibleCharacters: ScanRule = {
  id: 'invisible-characters',
  severity: 'quarantine',
  description: 'contains zero-width or bidirectional-override characters',
  checkText(file): ScanFinding[] {
    const findings: ScanFinding[] = [];
    file.lines.forEach((line, index) => {
      const match = INVISIBLE.exec(index === 0 ? line.replace(/^\uFEFF/, '') : line);
      if (match) {
        const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
        findings.push({ ruleId: 'invisible-characters', severity: 'quarantine', file: file.path, line: index + 1, message: `contains the invisible character U+${code}` });
      }
    });
    return findings;
  },
};
