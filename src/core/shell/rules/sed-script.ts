/**
 * Whether a sed script can run a program or write a file (POL-2, SEC-5): GNU sed's `e` command and
 * `s///e` flag execute text as shell, and `w`/`W` commands and `s///w` write files. A command may
 * stand behind any address (`1e cmd`, `/x/,$w out`, `$!e`), so the script is scanned command by
 * command — addresses, regexes and replacements skipped by their delimiters — rather than searched for
 * a letter. Anything the scanner does not recognise counts as running code: unknown is never read.
 */
export function sedScriptRunsOrWrites(script: string): boolean {
  const scanner = { text: script, at: 0 };
  while (scanner.at < script.length) {
    skip(scanner, /[\s;{}]/);
    if (scanner.at >= script.length) return false;
    if (script[scanner.at] === '#') {
      skipToLineEnd(scanner);
      continue;
    }
    if (!skipAddress(scanner)) return true;
    skip(scanner, /[\s!]/);
    const command = script[scanner.at];
    scanner.at += 1;
    switch (command) {
      case undefined:
        return false;
      case 'e':
      case 'w':
      case 'W':
        return true;
      case '{':
      case '}':
        break;
      case 's': {
        if (!skipTwoParts(scanner)) return true;
        // Flags: `g`, `p`, a number, `i`/`I`, `m`/`M` read; `e` runs, `w FILE` writes, anything else is not known.
        const flags = /^[A-Za-z0-9]*/.exec(script.slice(scanner.at))![0];
        if (/[^gpiImM0-9]/.test(flags)) return true;
        scanner.at += flags.length;
        break;
      }
      case 'y':
        if (!skipTwoParts(scanner)) return true;
        break;
      case 'a':
      case 'i':
      case 'c':
      case 'r':
      case 'R':
      case 'b':
      case 't':
      case 'T':
      case ':':
      case 'l':
      case 'L':
      case 'q':
      case 'Q':
        // Text, a file to read, a label or a number: up to the end of the line (labels: or a `;`).
        skipToLineEnd(scanner, command === 'b' || command === 't' || command === 'T' || command === 'l' || command === 'L' || command === 'q' || command === 'Q');
        break;
      default:
        if (!/[pPdDnNgGhHxz=F]/.test(command)) return true;
    }
  }
  return false;
}

interface Scanner {
  readonly text: string;
  at: number;
}

function skip(scanner: Scanner, pattern: RegExp): void {
  while (scanner.at < scanner.text.length && pattern.test(scanner.text[scanner.at]!)) scanner.at += 1;
}

function skipToLineEnd(scanner: Scanner, stopAtSemicolon = false): void {
  while (scanner.at < scanner.text.length && scanner.text[scanner.at] !== '\n' && !(stopAtSemicolon && (scanner.text[scanner.at] === ';' || scanner.text[scanner.at] === '}'))) {
    // A backslash continues `a`/`i`/`c` text on the next line.
    scanner.at += scanner.text[scanner.at] === '\\' ? 2 : 1;
  }
}

/** Skips `<d>A<d>B<d>` of `s` and `y` (the delimiter is the next character); false when it is not well formed. */
function skipTwoParts(scanner: Scanner): boolean {
  const delimiter = scanner.text[scanner.at];
  if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
  scanner.at += 1;
  return skipDelimited(scanner, delimiter) && skipDelimited(scanner, delimiter);
}

/** Skips text up to and past an unescaped `delimiter`; false when the text ends first. */
function skipDelimited(scanner: Scanner, delimiter: string): boolean {
  while (scanner.at < scanner.text.length) {
    const char = scanner.text[scanner.at]!;
    scanner.at += char === '\\' ? 2 : 1;
    if (char === delimiter) return true;
  }
  return false;
}

/** Skips `N`, `$`, `first~step`, `/re/I`, `\cREc`, and a second address after `,` (or `+N`, `~N`). */
function skipAddress(scanner: Scanner): boolean {
  for (let part = 0; part < 2; part += 1) {
    const char = scanner.text[scanner.at];
    if (char === undefined) return true;
    if (/[0-9]/.test(char)) skip(scanner, /[0-9~]/);
    else if (char === '$') scanner.at += 1;
    else if (char === '/' || char === '\\') {
      const delimiter = char === '/' ? '/' : scanner.text[scanner.at + 1];
      if (delimiter === undefined) return false;
      scanner.at += char === '/' ? 1 : 2;
      if (!skipDelimited(scanner, delimiter)) return false;
      skip(scanner, /[IM]/);
    } else if (part === 1 && (char === '+' || char === '~')) {
      scanner.at += 1;
      skip(scanner, /[0-9]/);
    } else if (part === 1) return false;
    else return true;
    skip(scanner, /[ \t]/);
    if (scanner.text[scanner.at] !== ',') return true;
    scanner.at += 1;
    skip(scanner, /[ \t]/);
  }
  return true;
}
