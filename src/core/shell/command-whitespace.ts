/**
 * A command line with its layout normalised and its meaning kept: what an approval shows and what a
 * remembered choice is keyed on (POL-3). Two lines that normalise alike must run alike, or "always
 * allow `rm "draft copy.txt"`" would also allow `rm "draft  copy.txt"`, another file.
 *
 * - Outside quotes, a run of spaces and tabs is one space, and a run of blank space holding a line
 *   break is one line break: a line break separates commands, a space separates words.
 * - Inside single quotes, double quotes and `$'…'`, and after a backslash, every character is kept:
 *   there whitespace is part of a word.
 * - From the first line break after an unquoted `<<` on, the text is kept as written: a here-document's
 *   body is data whose spacing the program reads.
 * - Leading and trailing blank space is dropped.
 *
 * The same reading applies to a JSON summary of a tool call: its strings are double-quoted.
 */
export function normalizeCommandWhitespace(command: string): string {
  let out = '';
  let index = 0;
  let heredocPending = false;
  const length = command.length;
  while (index < length) {
    const char = command[index]!;
    if (char === '\\') {
      // An escaped character (a space, a quote, a line continuation) is part of the word.
      out += command.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (char === "'" || char === '"') {
      const end = closingQuote(command, index, char, char === '"' || (char === "'" && command[index - 1] === '$'));
      out += command.slice(index, end);
      index = end;
      continue;
    }
    // `<<` and `<<-` open a here-document; `<<<` is a here-string, a word like any other.
    if (char === '<' && command[index + 1] === '<' && command[index + 2] !== '<' && command[index - 1] !== '<') heredocPending = true;
    if (/\s/.test(char)) {
      let end = index;
      let lineBreak = false;
      while (end < length && /\s/.test(command[end]!)) {
        if (command[end] === '\n') lineBreak = true;
        end += 1;
      }
      if (lineBreak && heredocPending) {
        // The body starts after the first line break: keep everything from here on.
        return (out.trimEnd() + command.slice(command.indexOf('\n', index))).trimEnd();
      }
      out += lineBreak ? '\n' : ' ';
      index = end;
      continue;
    }
    out += char;
    index += 1;
  }
  return out.trim();
}

/** The index just past the quote that closes the one at `start` (or the end of an unterminated one). */
function closingQuote(command: string, start: number, quote: string, backslashEscapes: boolean): number {
  let index = start + 1;
  while (index < command.length) {
    const char = command[index]!;
    if (backslashEscapes && char === '\\') {
      index += 2;
      continue;
    }
    if (char === quote) return index + 1;
    index += 1;
  }
  return command.length;
}
