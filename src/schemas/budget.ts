import { z } from 'zod';
import { IsoTime } from './common.js';

/** BUD-1: limits are kept per UTC calendar day or month. */
export const SpendPeriod = z.enum(['day', 'month']);
export type SpendPeriod = z.infer<typeof SpendPeriod>;

/** Largest limit accepted: a typo of a few zeros must not become "no limit at all". */
const MAX_LIMIT_USD = 1_000_000;

/**
 * An amount in US dollars: positive, at most 4 decimals (the bad-input rule: a currency
 * amount with more precision than a hundredth of a cent is a mistake, not a price).
 */
export const UsdAmount = z
  .number({ error: 'must be a number of US dollars' })
  .positive('must be positive')
  .max(MAX_LIMIT_USD, `must be at most ${MAX_LIMIT_USD}`)
  .refine((value) => Math.abs(Math.round(value * 10_000) - value * 10_000) < 1e-6, 'must have at most 4 decimals');

/** Share of the limit at which people are told spend is near it (BUD-1: default 80 %). */
export const SoftThreshold = z.number({ error: 'must be a number between 0 and 1' }).gt(0, 'must be above 0').lt(1, 'must be below 1 (the limit itself pauses runs)');

/** A spend limit as the API shows it, with what was spent in its current period. */
export const SpendLimit = z.object({
  id: z.string(),
  /** Null for the whole workspace's limit. */
  agentId: z.string().nullable(),
  period: SpendPeriod,
  limitUsd: z.number(),
  softThreshold: z.number(),
  /** The limit in force for the current period (a "raise once" decision may lift it for this period only). */
  effectiveLimitUsd: z.number(),
  /** `2026-12-06` for a day, `2026-12` for a month (UTC). */
  periodKey: z.string(),
  spentUsd: z.number(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type SpendLimit = z.infer<typeof SpendLimit>;

/** Sets (creates or replaces) the limit of one agent, or of the workspace, for one period. */
export const SetSpendLimitBody = z.strictObject({
  /** Omitted or null: the workspace's limit. */
  agentId: z.string().min(1).max(64).nullable().default(null),
  period: SpendPeriod,
  limitUsd: UsdAmount,
  softThreshold: SoftThreshold.default(0.8),
});
export type SetSpendLimitBody = z.infer<typeof SetSpendLimitBody>;

export const BudgetAlertKind = z.enum(['threshold', 'limit']);
/** `open` waits for the operator; a threshold alert ends `dismissed`, a limit decision one of the others. */
export const BudgetAlertState = z.enum(['open', 'dismissed', 'raised_once', 'raised', 'stopped']);

/** A soft threshold reached, or a limit reached with its budget decision (BUD-1). */
export const BudgetAlert = z.object({
  id: z.string(),
  kind: BudgetAlertKind,
  limitId: z.string(),
  agentId: z.string().nullable(),
  period: SpendPeriod,
  periodKey: z.string(),
  /** The run that reached the limit (a limit alert), or whose call crossed the threshold. */
  runId: z.string().nullable(),
  /** Runs paused now waiting for this decision. */
  waitingRunIds: z.array(z.string()),
  spentUsd: z.number(),
  limitUsd: z.number(),
  state: BudgetAlertState,
  decidedLimitUsd: z.number().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: IsoTime.nullable(),
  createdAt: IsoTime,
});
export type BudgetAlert = z.infer<typeof BudgetAlert>;

/**
 * An operator's budget decision: raise the limit for the current period only, raise it for good, or
 * stop the runs waiting on it; or dismiss a threshold alert.
 */
export const BudgetDecisionBody = z.discriminatedUnion('decision', [
  z.strictObject({ decision: z.literal('raise_once'), limitUsd: UsdAmount }),
  z.strictObject({ decision: z.literal('raise'), limitUsd: UsdAmount }),
  z.strictObject({ decision: z.literal('stop') }),
  z.strictObject({ decision: z.literal('dismiss') }),
]);
export type BudgetDecisionBody = z.infer<typeof BudgetDecisionBody>;

/** One model's price as the catalog has it, or as the workspace overrides it (USD per million tokens). */
export const ModelPrice = z.object({
  provider: z.string(),
  model: z.string(),
  label: z.string(),
  inputPerMillion: z.number(),
  outputPerMillion: z.number(),
  cacheReadPerMillion: z.number(),
  cacheWritePerMillion: z.number(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

export const PriceTable = z.object({
  /** The day the catalog's list prices were last checked against the vendors' pages. */
  checkedOn: z.string(),
  models: z.array(ModelPrice),
  /** The workspace's own prices (`settings.pricing`), keyed as set; these win over the catalog's. */
  overrides: z.array(ModelPrice.extend({ key: z.string() })),
});
export type PriceTable = z.infer<typeof PriceTable>;

/** Spend grouped one way (agent, space, model or day) over a range of days. */
export const SpendRow = z.object({
  key: z.string(),
  label: z.string(),
  costUsd: z.number(),
  calls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
});
export type SpendRow = z.infer<typeof SpendRow>;

export const SpendGrouping = z.enum(['agent', 'space', 'model', 'day']);
export type SpendGrouping = z.infer<typeof SpendGrouping>;

/** Applies the price table again to the calls recorded over whole UTC days (default: this month so far). */
export const RepriceResult = z.object({
  from: z.string(),
  to: z.string(),
  calls: z.number(),
  changed: z.number(),
  beforeUsd: z.number(),
  afterUsd: z.number(),
  /** Calls whose model has no price: left as recorded. */
  unpriced: z.number(),
});
export type RepriceResult = z.infer<typeof RepriceResult>;
