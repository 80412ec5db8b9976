import { PRICES_CHECKED_ON, PROVIDERS, type ModelPricing } from '../../llm/model-catalog.js';
import type { ModelPrice, PriceTable } from '../../schemas/budget.js';

/** A price with the catalog's defaults filled in: cache reads and writes cost the input price when unlisted. */
function priceOf(pricing: ModelPricing): Omit<ModelPrice, 'provider' | 'model' | 'label'> {
  return {
    inputPerMillion: pricing.inputPerMillion,
    outputPerMillion: pricing.outputPerMillion,
    cacheReadPerMillion: pricing.cacheReadPerMillion ?? pricing.inputPerMillion,
    cacheWritePerMillion: pricing.cacheWritePerMillion ?? pricing.inputPerMillion,
  };
}

/**
 * BUD-1: the one price table costs are computed from: every priced model of the catalog (input,
 * output, cache read, cache write, USD per million tokens), the day it was checked, and the
 * workspace's own overrides, which win over the catalog where they exist.
 */
export function priceTable(overrides: Readonly<Record<string, ModelPricing>> | undefined): PriceTable {
  const models: ModelPrice[] = [];
  for (const provider of Object.values(PROVIDERS)) {
    for (const model of provider.models) {
      if (model.pricing) models.push({ provider: provider.id, model: model.id, label: model.label, ...priceOf(model.pricing) });
    }
  }
  return {
    checkedOn: PRICES_CHECKED_ON,
    models,
    overrides: Object.entries(overrides ?? {}).map(([key, pricing]) => {
      const slash = key.indexOf('/');
      return { key, provider: slash < 0 ? '' : key.slice(0, slash), model: slash < 0 ? key : key.slice(slash + 1), label: key, ...priceOf(pricing) };
    }),
  };
}
