import { excerpt } from './terminal-text.js';

/** A column of a terminal table: its heading, the widest a cell may be, and right alignment for figures. */
export interface TextColumn {
  heading: string;
  max: number;
  right?: boolean;
}

/**
 * A table for the terminal: a heading row, then one row per item. Every cell passes through
 * {@link excerpt}, so agent-written text can neither break a row nor send escape codes; columns are
 * as wide as their widest cell (up to `max`), and no line ends in spaces — a script that splits on
 * whitespace or compares lines sees exactly the words.
 */
export function textTable(columns: readonly TextColumn[], rows: readonly (readonly string[])[]): string[] {
  const cells = rows.map((row) => columns.map((column, index) => excerpt(row[index] ?? '', column.max) || '-'));
  const widths = columns.map((column, index) => Math.max(column.heading.length, ...cells.map((row) => row[index]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => (columns[index]!.right ? value.padStart(widths[index]!) : value.padEnd(widths[index]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.heading)), ...cells.map(line)];
}
