/**
 * BUD-1: what the spend-limit check costs per model call. The check runs before every call of the
 * built-in loop (and every call an external runner sends through the model proxy), so it must be a
 * lookup, not a query. Measured on a real server's services over a real SQLite workspace holding
 * 20,000 recorded calls and four limits (an agent's and the workspace's, per day and month):
 * - `check_p50_us` / `check_p99_us`: `SpendLimitGate.beforeModelCall` for a run under its limits,
 *   warm (the totals kept in memory);
 * - `first_check_ms`: the first check in a process, which sums the ledger once per limit;
 * - `record_p50_us`: recording one call (the ledger row, the running totals, the threshold check).
 */
import { loadavg } from 'node:os';
import { nowIso } from '../src/ids.js';
import { BudgetService } from '../src/services/budgets/budget-service.js';
import { createSeededWorkspace, startTestServer } from '../test/support/test-server.js';
import { median, percentile, type BenchFigure } from './figure.js';

const LEDGER_ROWS = 20_000;
const CHECKS = 20_000;
const RECORDS = 500;

export default async function spendLimitCheck(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  const server = await startTestServer();
  try {
    const app = server.running.app;
    const workspaceId = (await createSeededWorkspace(server, 'Bench')).id;
    const agentId = (await server.api<{ agents: Array<{ id: string }> }>('GET', `/api/workspaces/${workspaceId}/agents`)).body.agents[0]!.id;
    const db = (await app.workspaces.handle(workspaceId)).database.db;
    const now = nowIso();
    for (let start = 0; start < LEDGER_ROWS; start += 500) {
      const rows = Array.from({ length: 500 }, (_, offset) => ({
        id: `mcc_bench_${start + offset}`,
        run_id: 'run_bench',
        agent_id: offset % 2 ? agentId : 'ag_other',
        provider: 'anthropic',
        model: 'claude-sonnet-5-5',
        input_tokens: 1000,
        output_tokens: 100,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: 0.000_01,
        priced: 1,
        created_at: now,
      }));
      await db.insertInto('model_call_costs').values(rows).execute();
    }
    for (const [agent, period] of [[agentId, 'day'], [agentId, 'month'], [null, 'day'], [null, 'month']] as const) {
      await app.budgets.set(workspaceId, { agentId: agent, period, limitUsd: 1_000, softThreshold: 0.8 });
    }
    // A fresh service state: what a process pays on its first check.
    const budgets = new BudgetService(app.workspaces, app.events);
    const first = performance.now();
    await budgets.reached(workspaceId, agentId);
    figures.push({ metric: 'first_check_ms', value: performance.now() - first, unit: 'ms' });

    const run = { workspaceId, runId: 'run_bench', agentId };
    const signal = new AbortController().signal;
    const checks: number[] = [];
    for (let index = 0; index < CHECKS; index += 1) {
      const started = performance.now();
      await app.spendGate.beforeModelCall(run, signal);
      checks.push((performance.now() - started) * 1000);
    }
    figures.push({ metric: 'check_p50_us', value: median(checks), unit: 'µs' });
    figures.push({ metric: 'check_p99_us', value: percentile(checks, 99), unit: 'µs' });

    const records: number[] = [];
    for (let index = 0; index < RECORDS; index += 1) {
      const started = performance.now();
      await app.spendGate.record(run, { provider: 'anthropic', model: 'claude-sonnet-5-5', usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0.000_01, priced: true });
      records.push((performance.now() - started) * 1000);
    }
    figures.push({ metric: 'record_p50_us', value: median(records), unit: 'µs' });
  } finally {
    await server.dispose();
  }
  return figures;
}
