import type { Command } from 'commander';
import type { BudgetAlert, PriceTable, RepriceResult, SpendGrouping, SpendLimit, SpendRow } from '../schemas/budget.js';
import { spendCsv } from '../services/budgets/spend-csv.js';
import type { ApiClient } from './api-client.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { dollars } from './plan-cost-text.js';
import { cell } from './terminal-text.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const json = (value: unknown) => out(JSON.stringify(value, null, 2));

/** An amount as typed; the server says what is wrong with it (positive, at most 4 decimals) and names the field. */
const amount = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

const DECISIONS: Record<string, 'raise_once' | 'raise' | 'stop' | 'dismiss'> = { 'raise-once': 'raise_once', raise: 'raise', stop: 'stop', dismiss: 'dismiss' };

/**
 * `control-center budgets list | set | remove | alerts | decide | prices | reprice` and `control-center costs`
 * (BUD-1): spend limits per agent or workspace, the budget decisions waiting, the price table and
 * spend grouped by agent, space, model or day — over the same HTTP API as the web app.
 */
export function registerBudgetCommands(program: Command, context: OperatorCommandContext): void {
  const budgets = program.command('budgets').description('spend limits per agent and workspace, budget decisions and prices').option('-w, --workspace <idOrName>', 'workspace (default: the only one)');
  const withWorkspace = async (options: { workspace?: string }) => {
    const api = await context.client();
    const workspace = await context.resolveWorkspace(api, options.workspace);
    return { api, base: `/api/workspaces/${workspace.id}` };
  };
  const agentsOf = async (api: ApiClient, base: string) => (await api.request<{ agents: Array<{ id: string; name: string }> }>('GET', `${base}/agents`)).agents;
  const nameOf = (agents: Array<{ id: string; name: string }>, id: string | null) => (id === null ? 'workspace' : (agents.find((agent) => agent.id === id)?.name ?? id));

  budgets
    .command('list')
    .description('the limits with what was spent in their current period')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { api, base } = await withWorkspace(budgets.opts());
      const { limits } = await api.request<{ limits: SpendLimit[] }>('GET', `${base}/budgets/limits`);
      if (options.json) return json(limits);
      if (limits.length === 0) return out('no spend limits');
      const agents = await agentsOf(api, base);
      for (const limit of limits) {
        const raised = limit.effectiveLimitUsd !== limit.limitUsd ? ` (${dollars(limit.effectiveLimitUsd)} this period)` : '';
        out(`${limit.id}  ${cell(nameOf(agents, limit.agentId), 16)} ${cell(limit.period, 6)} ${cell(limit.periodKey, 11)} spent ${cell(dollars(limit.spentUsd), 10)} of ${dollars(limit.limitUsd)}${raised}  alert at ${Math.round(limit.softThreshold * 100)} %`);
      }
    });
  budgets
    .command('set <usd>')
    .description("set (or replace) a limit: the workspace's, or an agent's with --agent")
    .requiredOption('--period <day|month>', 'UTC day or month')
    .option('--agent <name>', 'the agent (by name or id); without it, the whole workspace')
    .option('--threshold <percent>', 'soft threshold in percent (default 80)')
    .action(async (usd: string, options: { period: string; agent?: string; threshold?: string }) => {
      const { api, base } = await withWorkspace(budgets.opts());
      let agentId: string | null = null;
      if (options.agent) {
        const agent = (await agentsOf(api, base)).find((candidate) => candidate.name === options.agent || candidate.id === options.agent);
        if (!agent) throw new Error(`no agent named '${options.agent}'`);
        agentId = agent.id;
      }
      const body = { agentId, period: options.period, limitUsd: amount(usd), ...(options.threshold !== undefined ? { softThreshold: amount(options.threshold) / 100 } : {}) };
      const limit = await api.request<SpendLimit>('PUT', `${base}/budgets/limits`, body);
      out(`${limit.id}  ${options.agent ?? 'workspace'} ${limit.period} limit ${dollars(limit.limitUsd)}, spent ${dollars(limit.spentUsd)} (${limit.periodKey})`);
    });
  budgets
    .command('remove <limitId>')
    .description('remove a limit')
    .action(async (limitId: string) => {
      const { api, base } = await withWorkspace(budgets.opts());
      await api.request('DELETE', `${base}/budgets/limits/${encodeURIComponent(limitId)}`);
      out(`removed ${limitId}`);
    });
  budgets
    .command('alerts')
    .description('budget decisions and threshold alerts waiting (--all: decided ones too)')
    .option('--all', 'include decided and dismissed ones')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const { api, base } = await withWorkspace(budgets.opts());
      const { alerts } = await api.request<{ alerts: BudgetAlert[] }>('GET', `${base}/budgets/alerts?state=${options.all ? 'all' : 'open'}`);
      if (options.json) return json(alerts);
      if (alerts.length === 0) return out('nothing waiting');
      const agents = await agentsOf(api, base);
      for (const alert of alerts) {
        const waiting = alert.waitingRunIds.length > 0 ? `  waiting: ${alert.waitingRunIds.join(', ')}` : '';
        out(`${alert.id}  ${cell(alert.kind === 'limit' ? 'LIMIT' : 'threshold', 9)} ${cell(alert.state, 11)} ${cell(nameOf(agents, alert.agentId), 16)} ${alert.period} ${alert.periodKey}  ${dollars(alert.spentUsd)} of ${dollars(alert.limitUsd)}${waiting}`);
      }
    });
  budgets
    .command('decide <alertId> <decision>')
    .description('raise-once --limit <usd> (this period only) | raise --limit <usd> | stop (the waiting runs) | dismiss (a threshold alert)')
    .option('--limit <usd>', 'the new limit, for raise-once and raise')
    .action(async (alertId: string, decision: string, options: { limit?: string }) => {
      const { api, base } = await withWorkspace(budgets.opts());
      const chosen = DECISIONS[decision];
      if (!chosen) throw new Error(`decision must be one of ${Object.keys(DECISIONS).join(', ')}, got '${decision}'`);
      const body = chosen === 'raise_once' || chosen === 'raise' ? { decision: chosen, limitUsd: amount(options.limit ?? '') } : { decision: chosen };
      const decided = await api.request<BudgetAlert>('POST', `${base}/budgets/alerts/${encodeURIComponent(alertId)}/decision`, body);
      out(`${decided.id} ${decided.state}${decided.decidedLimitUsd !== null ? ` at ${dollars(decided.decidedLimitUsd)}` : ''}`);
    });
  budgets
    .command('prices')
    .description('the price table (USD per million tokens) and the day it was checked')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { api, base } = await withWorkspace(budgets.opts());
      const table = await api.request<PriceTable>('GET', `${base}/budgets/prices`);
      if (options.json) return json(table);
      out(`prices checked ${table.checkedOn}; USD per million tokens: input / output / cache read / cache write`);
      for (const row of [...table.overrides, ...table.models]) {
        out(`${cell(`${row.provider}/${row.model}`, 40)} ${row.inputPerMillion} / ${row.outputPerMillion} / ${row.cacheReadPerMillion} / ${row.cacheWritePerMillion}${'key' in row ? '  (this workspace)' : ''}`);
      }
    });

  budgets
    .command('reprice')
    .description('apply the price table again to the calls recorded over whole UTC days (default: this month so far)')
    .option('--from <YYYY-MM-DD>', 'first day (UTC)')
    .option('--to <YYYY-MM-DD>', 'last day (UTC)')
    .action(async (options: { from?: string; to?: string }) => {
      const { api, base } = await withWorkspace(budgets.opts());
      const result = await api.request<RepriceResult>('POST', `${base}/budgets/reprice`, { ...(options.from ? { from: options.from } : {}), ...(options.to ? { to: options.to } : {}) });
      out(`${result.from} to ${result.to}: ${result.calls} calls, ${result.changed} repriced, ${dollars(result.beforeUsd)} → ${dollars(result.afterUsd)}${result.unpriced ? ` (${result.unpriced} without a price, left as recorded)` : ''}`);
    });

  program
    .command('costs')
    .description('spend by agent, space, model or day; default: by day, this month so far')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--by <grouping>', 'agent | space | model | day', 'day')
    .option('--from <YYYY-MM-DD>', 'first day (UTC)')
    .option('--to <YYYY-MM-DD>', 'last day (UTC)')
    .option('--csv', 'print CSV')
    .option('--json', 'print JSON')
    .action(async (options: { workspace?: string; by: string; from?: string; to?: string; csv?: boolean; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const query = new URLSearchParams({ by: options.by, ...(options.from ? { from: options.from } : {}), ...(options.to ? { to: options.to } : {}) });
      const spend = await api.request<{ from: string; to: string; by: SpendGrouping; rows: SpendRow[] }>('GET', `${base}/budgets/spend?${query.toString()}`);
      if (options.json) return json(spend);
      if (options.csv) {
        process.stdout.write(spendCsv(spend.by, spend.rows));
        return;
      }
      out(`spend by ${spend.by}, ${spend.from} to ${spend.to}`);
      for (const row of spend.rows) out(`${cell(row.label, 28)} ${cell(dollars(row.costUsd), 10)} ${String(row.calls).padStart(6)} calls  ${row.inputTokens} in / ${row.outputTokens} out / ${row.cacheReadTokens} cache read / ${row.cacheWriteTokens} cache write`);
      out(`total ${dollars(spend.rows.reduce((sum, row) => sum + row.costUsd, 0))}`);
    });
}
