import { CompiledQuery } from 'kysely';

/**
 * Writes of another owner sent inside a statement (NF-SCALE: a round trip less): data-modifying CTEs
 * (`name as (…)`, comma-separated) whose parameters are numbered from `first`, on tables the
 * connection reaches by qualified names. PostgreSQL runs every data-modifying CTE exactly once,
 * whether or not the statement reads it, and all of them or none (one statement, one transaction).
 */
export interface StatementPart {
  ctes(first: number): string;
  values: unknown[];
}

/**
 * PostgreSQL: compiled queries as one statement, each before the last a data-modifying `with`
 * clause (written without `returning`; the last may return), their `$n` parameters numbered on.
 * Every clause sees the same snapshot and foreign keys are checked at the statement's end, so the
 * rows land together or not at all, as in a transaction: one round trip instead of a transaction's
 * several. Kysely passes every value as a parameter, so a `$` followed by digits in the text is one.
 * `part`, if given, goes after the queries' clauses, before the last query; its parameters after theirs.
 */
export function oneStatement(queries: ReadonlyArray<CompiledQuery<unknown>>, part?: StatementPart): CompiledQuery<unknown> {
  const parameters: unknown[] = [];
  const texts = queries.map((query) => {
    const offset = parameters.length;
    parameters.push(...query.parameters);
    return query.sql.replace(/\$(\d+)/g, (_, index: string) => `$${Number(index) + offset}`);
  });
  const last = texts.pop()!;
  const clauses = texts.map((text, index) => `w${index} as (${text})`);
  if (part) {
    clauses.push(part.ctes(parameters.length + 1));
    parameters.push(...part.values);
  }
  return CompiledQuery.raw(clauses.length > 0 ? `with ${clauses.join(', ')} ${last}` : last, parameters);
}
