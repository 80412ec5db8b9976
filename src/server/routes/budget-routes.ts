import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { BudgetAlert, BudgetDecisionBody, PriceTable, RepriceResult, SetSpendLimitBody, SpendGrouping, SpendLimit, SpendRow } from '../../schemas/budget.js';
import type { ControlCenter } from '../../services/control-center.js';
import { priceTable } from '../../services/budgets/price-table.js';
import { spendCsv } from '../../services/budgets/spend-csv.js';
import { operatorOf } from '../authenticate.js';
import { actingPerson } from '../acting-person.js';
import { WorkspaceParams } from './workspace-routes.js';

/** A calendar day as `YYYY-MM-DD` that really exists (2026-02-30 does not). */
const CalendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day as YYYY-MM-DD')
  .refine((value) => new Date(`${value}T00:00:00.000Z`).toISOString().startsWith(value), 'must be a real calendar day');

const MAX_RANGE_DAYS = 366;

/** A range of whole UTC days, at most a year; default: this month so far. Issues go on `from`. */
function dayRange<T extends { from?: string | undefined; to?: string | undefined }>(query: T, context: z.RefinementCtx): T & { from: string; to: string } {
  const today = new Date().toISOString().slice(0, 10);
  const to = query.to ?? today;
  const from = query.from ?? `${to.slice(0, 7)}-01`;
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  if (days < 0) context.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
  if (days > MAX_RANGE_DAYS) context.addIssue({ code: 'custom', path: ['from'], message: `the range must be at most ${MAX_RANGE_DAYS} days` });
  return { ...query, from, to };
}

const SpendQuery = z.object({ by: SpendGrouping.default('day'), from: CalendarDay.optional(), to: CalendarDay.optional() }).transform(dayRange);
const DayRange = z.strictObject({ from: CalendarDay.optional(), to: CalendarDay.optional() }).transform(dayRange);

/**
 * Spend limits, budget decisions, the price table and spend (BUD-1). Operators only: a run token
 * never satisfies `operator` (SEC-1), so an agent cannot raise its own limit or decide its own budget.
 */
export function budgetRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    // TEAM-2: everyone in the workspace sees limits and spend; limits and budget decisions are an admin's.
    const read = { access: 'operator', role: 'viewer' } as const;
    const config = { access: 'operator', role: 'admin' } as const;
    const base = '/api/workspaces/:workspaceId/budgets';
    const tags = ['budgets'];

    server.get(`${base}/limits`, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: z.object({ limits: z.array(SpendLimit) }), 404: ApiError } } }, async (request) => ({
      limits: await app.budgets.list(request.params.workspaceId),
    }));
    // Creates or replaces the limit of one agent (or of the workspace, agentId null) for one period.
    server.put(
      `${base}/limits`,
      { config, schema: { tags, params: WorkspaceParams, body: SetSpendLimitBody, response: { 200: SpendLimit, 400: ApiError, 404: ApiError } } },
      async (request) => app.budgets.set(request.params.workspaceId, request.body),
    );
    server.delete(
      `${base}/limits/:limitId`,
      { config, schema: { tags, params: WorkspaceParams.extend({ limitId: z.string().min(1).max(64) }), response: { 204: z.null(), 404: ApiError } } },
      async (request, reply) => {
        await app.budgets.remove(request.params.workspaceId, request.params.limitId);
        return reply.code(204).send(null);
      },
    );
    server.get(
      `${base}/alerts`,
      { config: read, schema: { tags, params: WorkspaceParams, querystring: z.object({ state: z.enum(['open', 'all']).default('open') }), response: { 200: z.object({ alerts: z.array(BudgetAlert) }), 400: ApiError, 404: ApiError } } },
      async (request) => ({ alerts: await app.budgets.alerts(request.params.workspaceId, request.query.state) }),
    );
    server.post(
      `${base}/alerts/:alertId/decision`,
      {
        config,
        schema: { tags, params: WorkspaceParams.extend({ alertId: z.string().min(1).max(64) }), body: BudgetDecisionBody, response: { 200: BudgetAlert, 400: ApiError, 404: ApiError, 409: ApiError } },
      },
      async (request) => app.budgets.decide(request.params.workspaceId, request.params.alertId, request.body, operatorOf(request.principal).operatorId, await actingPerson(app, request)),
    );
    server.get(`${base}/prices`, { config: read, schema: { tags, params: WorkspaceParams, response: { 200: PriceTable, 404: ApiError } } }, async (request) => {
      await app.workspaces.handle(request.params.workspaceId);
      return priceTable(undefined);
    });
    // Spend grouped by agent, space, model or day over whole UTC days (default: this month so far).
    server.get(
      `${base}/spend`,
      { config: read, schema: { tags, params: WorkspaceParams, querystring: SpendQuery, response: { 200: z.object({ from: z.string(), to: z.string(), by: SpendGrouping, rows: z.array(SpendRow) }), 400: ApiError, 404: ApiError } } },
      async (request) => {
        const { by, from, to } = request.query;
        return { from, to, by, rows: await app.budgets.spend(request.params.workspaceId, by, from, to) };
      },
    );
    // The price table applied again to the calls already recorded (their tokens are kept by kind).
    server.post(
      `${base}/reprice`,
      { config, schema: { tags, params: WorkspaceParams, body: DayRange, response: { 200: RepriceResult, 400: ApiError, 404: ApiError } } },
      async (request) => {
        const { from, to } = request.body;
        return { from, to, ...(await app.budgets.reprice(request.params.workspaceId, from, to)) };
      },
    );
    // The same rows as a CSV download.
    server.get(
      `${base}/spend.csv`,
      { config: read, schema: { tags, params: WorkspaceParams, querystring: SpendQuery, response: { 200: z.unknown().describe('text/csv: a header line, then one line per group'), 400: ApiError, 404: ApiError } } },
      async (request, reply) => {
        const { by, from, to } = request.query;
        const rows = await app.budgets.spend(request.params.workspaceId, by, from, to);
        return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="spend-by-${by}-${from}-${to}.csv"`).send(Buffer.from(spendCsv(by, rows)));
      },
    );
  };
}
