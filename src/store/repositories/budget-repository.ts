import { sql, type Kysely, type Selectable } from 'kysely';
import type { SpendGrouping, SpendPeriod, SpendRow } from '../../schemas/budget.js';
import type { BudgetAlertTable, SpendLimitTable, WorkspaceSchema } from '../workspace-schema.js';
import { enumColumn } from './column-parsers.js';

type Db = Kysely<WorkspaceSchema>;

/** A spend limit row as the services use it (BUD-1). */
export interface SpendLimitRecord {
  id: string;
  agentId: string | null;
  period: SpendPeriod;
  limitUsd: number;
  softThreshold: number;
  onceLimitUsd: number | null;
  oncePeriodKey: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface BudgetAlertRecord {
  id: string;
  kind: 'threshold' | 'limit';
  limitId: string;
  agentId: string | null;
  period: SpendPeriod;
  periodKey: string;
  runId: string | null;
  spentUsd: number;
  limitUsd: number;
  state: 'open' | 'dismissed' | 'raised_once' | 'raised' | 'stopped';
  decidedLimitUsd: number | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
}

const parsePeriod = enumColumn('spend_limits', 'period', ['day', 'month'] as const);
const parseKind = enumColumn('budget_alerts', 'kind', ['threshold', 'limit'] as const);
const parseState = enumColumn('budget_alerts', 'state', ['open', 'dismissed', 'raised_once', 'raised', 'stopped'] as const);

// PostgreSQL's double precision comes back as a number, its sums and bigints may come back as strings.
const money = (value: number | string | null): number => (value === null ? 0 : Number(value));
const moneyOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

function toSpendLimit(row: Selectable<SpendLimitTable>): SpendLimitRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    period: parsePeriod(row.period, row.id),
    limitUsd: money(row.limit_usd),
    softThreshold: money(row.soft_threshold),
    onceLimitUsd: moneyOrNull(row.once_limit_usd),
    oncePeriodKey: row.once_period_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toBudgetAlert(row: Selectable<BudgetAlertTable>): BudgetAlertRecord {
  return {
    id: row.id,
    kind: parseKind(row.kind, row.id),
    limitId: row.limit_id,
    agentId: row.agent_id,
    period: parsePeriod(row.period, row.id),
    periodKey: row.period_key,
    runId: row.run_id,
    spentUsd: money(row.spent_usd),
    limitUsd: money(row.limit_usd),
    state: parseState(row.state, row.id),
    decidedLimitUsd: moneyOrNull(row.decided_limit_usd),
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    createdAt: row.created_at,
  };
}

export async function listSpendLimits(db: Db): Promise<SpendLimitRecord[]> {
  const rows = await db.selectFrom('spend_limits').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toSpendLimit);
}

export async function findSpendLimit(db: Db, id: string): Promise<SpendLimitRecord | null> {
  const row = await db.selectFrom('spend_limits').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toSpendLimit(row) : null;
}

export async function findSpendLimitFor(db: Db, agentId: string | null, period: SpendPeriod): Promise<SpendLimitRecord | null> {
  let query = db.selectFrom('spend_limits').selectAll().where('period', '=', period);
  query = agentId === null ? query.where('agent_id', 'is', null) : query.where('agent_id', '=', agentId);
  const row = await query.executeTakeFirst();
  return row ? toSpendLimit(row) : null;
}

export async function insertSpendLimit(db: Db, row: Selectable<SpendLimitTable>): Promise<void> {
  await db.insertInto('spend_limits').values(row).execute();
}

export async function updateSpendLimit(db: Db, id: string, patch: Partial<Omit<Selectable<SpendLimitTable>, 'id'>>): Promise<void> {
  await db.updateTable('spend_limits').set(patch).where('id', '=', id).execute();
}

export async function deleteSpendLimit(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('spend_limits').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** What was recorded in [start, end), for one agent or (agentId null) for the whole workspace. */
export async function sumSpend(db: Db, agentId: string | null, start: string, end: string): Promise<number> {
  return (await sumSpendEach(db, [{ agentId, start, end }]))[0]!;
}

/** One total to sum: one agent's (or, agentId null, the whole workspace's) spend in [start, end). */
export interface SpendSubject {
  agentId: string | null;
  start: string;
  end: string;
}

/**
 * Several spend totals in one statement, in the order asked: one scan of the rows between
 * the earliest start and the latest end (the time index), each total a filtered sum of it.
 */
export async function sumSpendEach(db: Db, subjects: readonly SpendSubject[]): Promise<number[]> {
  if (subjects.length === 0) return [];
  const from = subjects.reduce((earliest, subject) => (subject.start < earliest ? subject.start : earliest), subjects[0]!.start);
  const to = subjects.reduce((latest, subject) => (subject.end > latest ? subject.end : latest), subjects[0]!.end);
  const totals = subjects.map((subject, index) => {
    const agent = subject.agentId === null ? sql`` : sql` and agent_id = ${subject.agentId}`;
    return sql<number | string | null>`sum(case when created_at >= ${subject.start} and created_at < ${subject.end}${agent} then cost_usd else 0 end)`.as(`t${index}`);
  });
  const row = (await db.selectFrom('model_call_costs').select(totals).where('created_at', '>=', from).where('created_at', '<', to).executeTakeFirst()) as Record<string, number | string | null> | undefined;
  return subjects.map((_, index) => money(row?.[`t${index}`] ?? null));
}

/**
 * Spend in [start, end) grouped by agent, space (through the call's run), model or UTC day. The
 * label is the agent's or space's name where it still exists.
 */
export async function spendBy(db: Db, grouping: SpendGrouping, start: string, end: string): Promise<SpendRow[]> {
  const base = db.selectFrom('model_call_costs as c').where('c.created_at', '>=', start).where('c.created_at', '<', end);
  const totals = {
    costUsd: sql<number | string>`sum(c.cost_usd)`,
    calls: sql<number | string>`count(*)`,
    inputTokens: sql<number | string>`sum(c.input_tokens)`,
    outputTokens: sql<number | string>`sum(c.output_tokens)`,
    cacheReadTokens: sql<number | string>`sum(c.cache_read_tokens)`,
    cacheWriteTokens: sql<number | string>`sum(c.cache_write_tokens)`,
  };
  const sums = [
    totals.costUsd.as('costUsd'),
    totals.calls.as('calls'),
    totals.inputTokens.as('inputTokens'),
    totals.outputTokens.as('outputTokens'),
    totals.cacheReadTokens.as('cacheReadTokens'),
    totals.cacheWriteTokens.as('cacheWriteTokens'),
  ];
  type Grouped = { key: string | null; label: string | null; costUsd: number | string; calls: number | string; inputTokens: number | string; outputTokens: number | string; cacheReadTokens: number | string; cacheWriteTokens: number | string };
  let rows: Grouped[];
  if (grouping === 'agent') {
    rows = (await base
      .leftJoin('agents as a', 'a.id', 'c.agent_id')
      .select([sql<string>`c.agent_id`.as('key'), sql<string | null>`max(a.name)`.as('label'), ...sums])
      .groupBy('c.agent_id')
      .execute()) as Grouped[];
  } else if (grouping === 'space') {
    rows = (await base
      .leftJoin('runs as r', 'r.id', 'c.run_id')
      .leftJoin('spaces as s', 's.id', 'r.space_id')
      .select([sql<string | null>`r.space_id`.as('key'), sql<string | null>`max(s.name)`.as('label'), ...sums])
      .groupBy('r.space_id')
      .execute()) as Grouped[];
  } else if (grouping === 'model') {
    rows = (await base.select([sql<string>`c.model`.as('key'), sql<string>`c.model`.as('label'), ...sums]).groupBy('c.model').execute()) as Grouped[];
  } else {
    // ISO strings start with the UTC day: the first ten characters group by day on both dialects.
    const day = sql<string>`substr(c.created_at, 1, 10)`;
    rows = (await base.select([day.as('key'), day.as('label'), ...sums]).groupBy(day).orderBy(day).execute()) as Grouped[];
  }
  return rows.map((row) => ({
    key: row.key ?? '',
    label: row.label ?? row.key ?? '(none)',
    costUsd: money(row.costUsd),
    calls: money(row.calls),
    inputTokens: money(row.inputTokens),
    outputTokens: money(row.outputTokens),
    cacheReadTokens: money(row.cacheReadTokens),
    cacheWriteTokens: money(row.cacheWriteTokens),
  }));
}

export async function insertBudgetAlert(db: Db, row: Selectable<BudgetAlertTable>): Promise<void> {
  await db.insertInto('budget_alerts').values(row).execute();
}

export async function findBudgetAlert(db: Db, id: string): Promise<BudgetAlertRecord | null> {
  const row = await db.selectFrom('budget_alerts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toBudgetAlert(row) : null;
}

/** The alert of one kind a limit raised in one period, if any (each is raised once per period). */
export async function findAlertOfPeriod(db: Db, limitId: string, key: string, kind: 'threshold' | 'limit', state?: 'open'): Promise<BudgetAlertRecord | null> {
  let query = db.selectFrom('budget_alerts').selectAll().where('limit_id', '=', limitId).where('period_key', '=', key).where('kind', '=', kind);
  if (state) query = query.where('state', '=', state);
  const row = await query.orderBy('created_at', 'desc').executeTakeFirst();
  return row ? toBudgetAlert(row) : null;
}

export async function listBudgetAlerts(db: Db, state: 'open' | 'all'): Promise<BudgetAlertRecord[]> {
  let query = db.selectFrom('budget_alerts').selectAll();
  if (state === 'open') query = query.where('state', '=', 'open');
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(200).execute();
  return rows.map(toBudgetAlert);
}

export async function decideBudgetAlert(db: Db, id: string, change: { state: BudgetAlertRecord['state']; decidedLimitUsd: number | null; decidedBy: string; decidedAt: string }): Promise<boolean> {
  const result = await db
    .updateTable('budget_alerts')
    .set({ state: change.state, decided_limit_usd: change.decidedLimitUsd, decided_by: change.decidedBy, decided_at: change.decidedAt })
    .where('id', '=', id)
    .where('state', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
