import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../workspace-schema.js';

/** Recorded cost and tokens of a set of runs and every run under them (subagents, delegates). */
export interface RunTreeCost {
  usd: number;
  inputTokens: number;
  outputTokens: number;
  runs: number;
}

/** Levels followed at most: delegation depth is capped far below this; a parent cycle cannot loop. */
const MAX_LEVELS = 32;

/**
 * Sums what the runs `rootIds` and their descendants recorded (HAR-6's run log), level by level down
 * `parent_run_id`. TRUTH-3: the figure shown beside an estimate is this sum, never a recomputation.
 */
export async function runTreeCost(db: Kysely<WorkspaceSchema>, rootIds: readonly string[]): Promise<RunTreeCost> {
  const total: RunTreeCost = { usd: 0, inputTokens: 0, outputTokens: 0, runs: 0 };
  const seen = new Set<string>();
  let level = [...new Set(rootIds)];
  for (let depth = 0; level.length > 0 && depth < MAX_LEVELS; depth += 1) {
    const rows = await db.selectFrom('runs').select(['id', 'cost_usd', 'input_tokens', 'output_tokens']).where('id', 'in', level).execute();
    for (const row of rows) {
      seen.add(row.id);
      total.usd += row.cost_usd ?? 0;
      total.inputTokens += row.input_tokens ?? 0;
      total.outputTokens += row.output_tokens ?? 0;
      total.runs += 1;
    }
    const children = await db.selectFrom('runs').select('id').where('parent_run_id', 'in', level).execute();
    level = children.map((child) => child.id).filter((id) => !seen.has(id));
  }
  // Dollars to a millionth, as every other recorded figure: no float noise like 0.30000000000000004.
  return { ...total, usd: Math.round(total.usd * 1_000_000) / 1_000_000 };
}
