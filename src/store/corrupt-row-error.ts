/**
 * A stored row that does not hold what its column promises (unparsable JSON, a value outside the
 * column's set). Raised by the repositories' mappers so a damaged database fails loudly, naming the
 * table, the column and the row, instead of handing a wrong shape to the services.
 */
export class CorruptRowError extends Error {
  constructor(
    readonly table: string,
    readonly column: string,
    readonly rowKey: string,
    readonly problem: string,
  ) {
    super(`corrupt row in ${table}.${column} (row ${rowKey}): ${problem}`);
    this.name = 'CorruptRowError';
  }
}
