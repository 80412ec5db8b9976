import { DataTypeNode, OperationNodeTransformer, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';

/**
 * The migrations are written once, with the Kysely schema builder, in SQLite's column types. On
 * PostgreSQL two of them mean less than they do in SQLite and are widened here, in one place, so no
 * migration needs a dialect branch:
 * - `integer` is 64-bit in SQLite but 32-bit in PostgreSQL; epoch-millisecond columns
 *   (`pipeline_jobs.run_at`, …) overflow it, so it becomes `bigint`;
 * - `real` is an 8-byte float in SQLite but 4-byte in PostgreSQL (costs in USD would lose cents),
 *   so it becomes `double precision`;
 * - `blob` does not exist in PostgreSQL; its byte string is `bytea`.
 * Applied only to the migrations' connection on PostgreSQL (see `runMigrations`).
 */
export class PortableColumnTypes implements KyselyPlugin {
  private readonly transformer = new WidenColumnTypes();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const WIDENED: Partial<Record<DataTypeNode['dataType'], DataTypeNode['dataType']>> = {
  integer: 'bigint',
  real: 'double precision',
  // SQLite's byte string; PostgreSQL calls it `bytea` (attachment bytes, TOOL-3).
  blob: 'bytea',
};

class WidenColumnTypes extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    const widened = WIDENED[node.dataType];
    return widened ? DataTypeNode.create(widened) : node;
  }
}
