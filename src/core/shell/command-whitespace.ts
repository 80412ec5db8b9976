/**
 * A command line with its layout normalised and its meaning kept: what an approval shows and what a
 * remembered choice is keyed on (POL-3). Two lines that normalise alike must run alike, or "always
 * allow `rm "draft copy.txt"`" would also allow `rm "draft  copy.txt"`, another file.
 *
 * - Outside quotes, a run of spaces and tabs is one space, and a run of them holding a line break is
 *   one line break: a line break separates commands, a space separates words. Only these are bash's
 *   blanks: a carriage return, a no-break space or a Unicode line separator is a character of the
 *   word it sits in (`rm x<U+00A0>y` removes one file), so it is kept as written.
 * - `$'…'` is an ANSI-C quote only when its `$` is a parameter sign, not escaped (`\$'…'` is a literal
 *   `$` before a plain single quote) and not the second half of `$$`: the two quotes end differently.
 * - Inside single quotes, double quotes and `$'…'`, and after a backslash, every character is kept:
 *   there whitespace is part of a word.
 * - From the first line break after an unquoted `<<` on, the text is kept as written: a here-document's
 *   body is data whose spacing the program reads.
 * - Leading and trailing blanks are dropped.
 *
 * The same reading applies to a JSON summary of a tool call: its strings are double-quoted.
 */
export function normalizeCommandWhitespace(command: string): string {
  let out = '';
  let index = 0;
  let heredocPending = false;
  // How many unescaped `$` signs directly precede this character: `$$` is the shell's process id, so
  // only an odd count leaves a `$` that opens an ANSI-C quote.
  let dollars = 0;
  const length = command.length;
  while (index < length) {
    const char = command[index]!;
    if (char === '\\') {
      // An escaped character (a space, a quote, a `$`, a line continuation) is part of the word.
      out += command.slice(index, index + 2);
      index += 2;
      dollars = 0;
      continue;
    }
    if (char === "'" || char === '"') {
      const end = closingQuote(command, index, char, char === '"' || (char === "'" && dollars % 2 === 1));
      out += command.slice(index, end);
      index = end;
      dollars = 0;
      continue;
    }
    dollars = char === '$' ? dollars + 1 : 0;
    // `<<` and `<<-` open a here-document; `<<<` is a here-string, a word like any other.
    if (char === '<' && command[index + 1] === '<' && command[index + 2] !== '<' && command[index - 1] !== '<') heredocPending = true;
    if (isBlank(char)) {
      let end = index;
      let lineBreak = false;
      while (end < length && isBlank(command[end]!)) {
        if (command[end] === '\n') lineBreak = true;
        end += 1;
      }
      if (lineBreak && heredocPending) {
        // The body starts after the first line break: keep everything from here on.
        return trimBlanks(trimBlanks(out) + command.slice(command.indexOf('\n', index)));
      }
      out += lineBreak ? '\n' : ' ';
      index = end;
      continue;
    }
    out += char;
    index += 1;
  }
  return trimBlanks(out);
}

/** Bash's blanks and its command separator: what splits words or commands. `\s` is wider (NBSP, U+2028, `\r`, …). */
function isBlank(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n';
}

/** The text without leading and trailing blanks; any other character at either end belongs to a word. */
function trimBlanks(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isBlank(text[start]!)) start += 1;
  while (end > start && isBlank(text[end - 1]!)) end -= 1;
  return text.slice(start, end);
}

/**
 * The index just past the quote that closes the one at `start` (or the end of an unterminated one).
 * Inside double quotes, `$(…)`, `${…}` and backquotes open a new quoting context: a `"` inside them
 * (`"$(echo "a  b")"`, `"${x:-"a  b"}"`) does not close the outer string, so they are skipped whole.
 */
function closingQuote(command: string, start: number, quote: string, backslashEscapes: boolean): number {
  let index = start + 1;
  while (index < command.length) {
    const char = command[index]!;
    if (backslashEscapes && char === '\\') {
      index += 2;
      continue;
    }
    if (quote === '"' && (char === '`' || (char === '$' && (command[index + 1] === '(' || command[index + 1] === '{')))) {
      index = closingSubstitution(command, index);
      continue;
    }
    if (char === quote) return index + 1;
    index += 1;
  }
  return command.length;
}

/**
 * The index just past the `$(…)`, `${…}` or backquoted command that starts at `start`, following its
 * quotes, escapes and nested substitutions (or the end of the line when it is not closed). Erring long
 * is safe: what it covers is kept as written.
 */
function closingSubstitution(command: string, start: number): number {
  if (command[start] === '`') {
    let index = start + 1;
    while (index < command.length && command[index] !== '`') index += command[index] === '\\' ? 2 : 1;
    return Math.min(index + 1, command.length);
  }
  const open = command[start + 1]!;
  const close = open === '(' ? ')' : '}';
  let depth = 1;
  let index = start + 2;
  while (index < command.length) {
    const char = command[index]!;
    if (char === '\\') {
      index += 2;
      continue;
    }
    if (char === "'" || char === '"') {
      index = closingQuote(command, index, char, char === '"');
      continue;
    }
    if (char === '`' || (char === '$' && (command[index + 1] === '(' || command[index + 1] === '{'))) {
      index = closingSubstitution(command, index);
      continue;
    }
    if (char === open) depth += 1;
    else if (char === close && --depth === 0) return index + 1;
    index += 1;
  }
  return command.length;
}
