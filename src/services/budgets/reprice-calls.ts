import type { Kysely } from 'kysely';
import { computeCost, findModel, modelPricing, PROVIDERS, type ModelPricing, type ProviderId } from '../../llm/model-catalog.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/** What applying the price table again changed. */
export interface RepriceOutcome {
  calls: number;
  changed: number;
  beforeUsd: number;
  afterUsd: number;
  /** Calls left as they were: their model has no price (or their provider is unknown). */
  unpriced: number;
}

const BATCH = 1_000;

/**
 * BUD-1: applies the price table (the catalog, then the workspace's overrides) again to the calls
 * recorded in [start, end): each call's tokens by kind are priced anew and its cost rewritten where
 * it differs. A call whose model has no price keeps its recorded cost.
 */
export async function repriceCalls(db: Kysely<WorkspaceSchema>, start: string, end: string, overrides: Readonly<Record<string, ModelPricing>> | undefined): Promise<RepriceOutcome> {
  const outcome: RepriceOutcome = { calls: 0, changed: 0, beforeUsd: 0, afterUsd: 0, unpriced: 0 };
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('model_call_costs')
      .selectAll()
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return outcome;
    after = rows.at(-1)!.id;
    for (const row of rows) {
      const recorded = Number(row.cost_usd);
      outcome.calls += 1;
      outcome.beforeUsd += recorded;
      const provider = row.provider && row.provider in PROVIDERS ? PROVIDERS[row.provider as ProviderId] : null;
      const pricing = provider ? modelPricing(provider, findModel(provider.id, row.model), { pricing: overrides ? { ...overrides } : {} }) : null;
      if (!pricing) {
        outcome.unpriced += 1;
        outcome.afterUsd += recorded;
        continue;
      }
      const cost = computeCost({ inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens), cacheReadTokens: Number(row.cache_read_tokens), cacheWriteTokens: Number(row.cache_write_tokens) }, pricing);
      outcome.afterUsd += cost;
      if (cost === recorded && row.priced === 1) continue;
      await db.updateTable('model_call_costs').set({ cost_usd: cost, priced: 1 }).where('id', '=', row.id).execute();
      outcome.changed += 1;
    }
  }
}
