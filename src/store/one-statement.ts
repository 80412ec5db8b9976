import { CompiledQuery } from 'kysely';

/**
 * PostgreSQL: compiled queries as one statement, each before the last a data-modifying `with`
 * clause (written without `returning`; the last may return), their `$n` parameters numbered on.
 * Every clause sees the same snapshot and foreign keys are checked at the statement's end, so the
 * rows land together or not at all, as in a transaction: one round trip instead of a transaction's
 * several. Kysely passes every value as a parameter, so a `$` followed by digits in the text is one.
 */
export function oneStatement(queries: ReadonlyArray<CompiledQuery<unknown>>): CompiledQuery<unknown> {
  const parameters: unknown[] = [];
  const texts = queries.map((query) => {
    const offset = parameters.length;
    parameters.push(...query.parameters);
    return query.sql.replace(/\$(\d+)/g, (_, index: string) => `$${Number(index) + offset}`);
  });
  const last = texts.pop()!;
  const clauses = texts.map((text, index) => `w${index} as (${text})`);
  return CompiledQuery.raw(clauses.length > 0 ? `with ${clauses.join(', ')} ${last}` : last, parameters);
}
