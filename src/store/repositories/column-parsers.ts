import type { z } from 'zod';
import { CorruptRowError } from '../corrupt-row-error.js';

/** Reads one stored column into its domain value; `rowKey` names the row in the error. */
export type ColumnParser<T> = (value: string, rowKey: string) => T;

/**
 * The one parser of a JSON column: `JSON.parse` and then the column's schema. A value that is not
 * JSON, or not of the schema's shape, throws a {@link CorruptRowError} naming table and column.
 * Schemas are built once at module load, never per call.
 */
export function jsonColumn<T>(table: string, column: string, schema: z.ZodType<T>): ColumnParser<T> {
  return (value, rowKey) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new CorruptRowError(table, column, rowKey, `not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw new CorruptRowError(table, column, rowKey, `unexpected shape${where}: ${issue?.message ?? 'invalid'}`);
    }
    return result.data;
  };
}

/**
 * The parser of a text column that holds one of a fixed set of values (a state, a mode, a kind). A
 * value outside the set throws a {@link CorruptRowError}; the check is a set lookup, cheap enough
 * for the hot reads (runs, spaces).
 */
export function enumColumn<const T extends string>(table: string, column: string, values: readonly T[]): ColumnParser<T> {
  const allowed: ReadonlySet<string> = new Set(values);
  const isAllowed = (value: string): value is T => allowed.has(value);
  return (value, rowKey) => {
    if (!isAllowed(value)) throw new CorruptRowError(table, column, rowKey, `'${value}' is not one of ${values.join(', ')}`);
    return value;
  };
}
