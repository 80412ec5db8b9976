/**
 * Agent-controlled text on its way to a terminal. C0/C1 controls, DEL and the invisible
 * formatting characters (bidi overrides and isolates, zero-width, BOM) become a space, so a model's
 * output, a tool name or a goal can neither send escape sequences that drive the terminal nor make a
 * line read differently from what it is. Only the newline survives, and only where asked.
 */
// eslint-disable-next-line no-control-regex -- replacing control characters is this pattern's whole job
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/gu;

/** `text` safe to print: unsafe characters replaced by a space; newlines kept only with `keepNewlines`. */
export function printable(text: string, options: { keepNewlines?: boolean } = {}): string {
  const cleaned = text.replace(/\r\n?/g, '\n').replace(UNSAFE, ' ');
  return options.keepNewlines ? cleaned : cleaned.replace(/\n/g, ' ');
}

/** One table cell: {@link printable} on one line, cut and padded to `width`. */
export function cell(value: string, width: number): string {
  return printable(value).slice(0, width).padEnd(width);
}

/** A one-line excerpt of at most `max` characters, "…" when cut. */
export function excerpt(value: string, max: number): string {
  const line = printable(value).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
