import { newId, nowIso } from '../../ids.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import type { BudgetAlert, BudgetDecisionBody, SetSpendLimitBody, SpendGrouping, SpendLimit, SpendPeriod, SpendRow } from '../../schemas/budget.js';
import type { ModelUsage } from '../../llm/model-types.js';
import {
  decideBudgetAlert,
  deleteSpendLimit,
  findAlertOfPeriod,
  findBudgetAlert,
  findSpendLimit,
  findSpendLimitFor,
  insertBudgetAlert,
  insertSpendLimit,
  listBudgetAlerts,
  listSpendLimits,
  spendBy,
  sumSpend,
  sumSpendEach,
  updateSpendLimit,
  type BudgetAlertRecord,
  type SpendLimitRecord,
} from '../../store/repositories/budget-repository.js';
import type { EventBus } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { AuditActor } from '../../schemas/audit.js';
import { withAuditEntry } from '../audit/audit-act.js';
import { PostgresAdapter, type Kysely } from 'kysely';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { periodBounds, periodKey } from './spend-period.js';
import { SpendTotals } from './spend-totals.js';
import { repriceCalls, type RepriceOutcome } from './reprice-calls.js';

/** One model call to record (BUD-1), from whichever transport or the model proxy made it. */
export interface ModelCallSpend {
  runId: string;
  agentId: string;
  provider: string | null;
  model: string;
  usage: ModelUsage;
  costUsd: number;
  priced: boolean;
}

/** A limit the next call would go over: which, in which period, with the spend and the limit in force. */
export interface ReachedLimit {
  limit: SpendLimitRecord;
  key: string;
  spentUsd: number;
  effectiveLimitUsd: number;
}

/** What the budget service needs to pause, resume and stop runs (the run-control pause, HAR-5). */
export interface BudgetRunControl {
  resume(workspaceId: string, runId: string): void;
  cancel(runId: string): void;
}

/**
 * Spend limits (BUD-1): limits per agent and per workspace, per UTC day and month; the ledger of
 * every model call's spend; the soft-threshold alerts and the budget decisions at a limit. The
 * check before a model call reads limits and totals kept in memory ({@link SpendTotals}), so it
 * costs a map lookup, not a query (see `bench/spend-limit-check.bench.ts`).
 *
 * On PostgreSQL several processes (API processes, workers) record and check spend against the same
 * limits; two things are then shared rather than kept:
 * - The limits stay cached per process (a workspace without limits costs no statement per model
 *   call), and every change of a limit — set, raised by a decision, removed — publishes
 *   `budget.limitChanged`; each other process drops its cached limits when it hears it, so its next
 *   check reads them again. The window: until the event is delivered there (its append waits 10 ms
 *   for company, then one statement and a notification; about 100 ms at most on a healthy
 *   database), a check elsewhere still uses the limits it had. The event is published after the
 *   change committed, so a read after hearing it sees the change; a read already under way when
 *   the cache is dropped serves only the checks that were waiting on it.
 * - The totals: when limits apply, the check before a call sums the ledger again for every limit
 *   that applies, in one statement, so it counts what every process has recorded (each cost row
 *   is committed when its `record` resolves). Totals fed by events were the other option: no
 *   statement per check, but a total summed from the ledger and then moved by events double-counts
 *   or misses the calls whose rows and events cross that sum, a lost event leaves it wrong for the
 *   rest of the period, and it is still behind by the delivery window — N processes could each
 *   pass the limit with the calls in flight. The exact sum costs one statement per model call of
 *   a workspace with limits, and none without.
 */
export class BudgetService {
  private readonly totals = new SpendTotals();
  /** Each workspace's limits, read once and dropped when one is set, removed or decided. */
  private readonly limits = new Map<string, Promise<SpendLimitRecord[]>>();
  /** Runs paused at a limit, per open limit alert: the decision resumes or stops them. */
  private readonly waiting = new Map<string, Set<string>>();
  /** Each workspace's model calls this process is recording (their rows wait for the run log's batch). */
  private readonly recording = new Map<string, Set<Promise<void>>>();
  private runControl: BudgetRunControl | null = null;
  /** PostgreSQL: the limits and periods whose threshold alert this process knows exists (raised once per period, never deleted). */
  private readonly thresholdSeen = new Set<string>();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
    private readonly clock: () => Date = () => new Date(),
  ) {
    // PostgreSQL only (never called when embedded): another process changed a limit, or decided
    // an alert that runs paused here wait on. A decision's limit change is published before its
    // alert, and events arrive in order, so a run resumed here checks against the new limits.
    events.subscribeRemote(['budget.limitChanged', 'budget.alert'], (event) => {
      if (event.type === 'budget.limitChanged') this.limits.delete(event.workspaceId);
      else if (event.type === 'budget.alert' && event.data.state !== 'open') this.release(event.workspaceId, event.data.id, event.data.state);
    });
  }

  /** Set by the composition root once the executor exists (the decision resumes or cancels runs). */
  controlRunsWith(control: BudgetRunControl): void {
    this.runControl = control;
  }

  private async db(workspaceId: string) {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }

  private async limitsOf(workspaceId: string): Promise<SpendLimitRecord[]> {
    let limits = this.limits.get(workspaceId);
    if (!limits) {
      limits = this.db(workspaceId).then((db) => listSpendLimits(db));
      this.limits.set(workspaceId, limits);
      limits.catch(() => this.limits.delete(workspaceId));
    }
    return limits;
  }

  /** A limit changed: this process reads the limits again, and every other one drops its cache when it hears the event. */
  private limitsChanged(workspaceId: string, limitId: string): void {
    this.limits.delete(workspaceId);
    this.events.publish(workspaceId, 'budget.limitChanged', { limitId });
  }

  /**
   * The spend of each limit in its current period (`keys`): the kept totals when embedded (this
   * process records every call); on PostgreSQL summed from the ledger now, in one statement, since
   * other processes record calls too. What was summed replaces the kept totals, which the
   * threshold check of this process's next recorded call starts from.
   */
  private async spentNow(workspaceId: string, limits: readonly SpendLimitRecord[], keys: Record<SpendPeriod, string>): Promise<number[]> {
    const db = await this.db(workspaceId);
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
      return Promise.all(limits.map((limit) => this.spentIn(workspaceId, limit.agentId, limit.period, keys[limit.period])));
    }
    const sums = await sumSpendEach(db, limits.map((limit) => ({ agentId: limit.agentId, ...periodBounds(limit.period, keys[limit.period]) })));
    limits.forEach((limit, index) => this.totals.set(workspaceId, limit.agentId, limit.period, keys[limit.period], sums[index]!));
    return sums;
  }

  private spentIn(workspaceId: string, agentId: string | null, period: SpendPeriod, key: string): Promise<number> {
    return this.totals.get(workspaceId, agentId, period, key, async () => {
      const { start, end } = periodBounds(period, key);
      return sumSpend(await this.db(workspaceId), agentId, start, end);
    });
  }

  private effectiveLimit(limit: SpendLimitRecord, key: string): number {
    return limit.onceLimitUsd !== null && limit.oncePeriodKey === key ? limit.onceLimitUsd : limit.limitUsd;
  }

  private view(limit: SpendLimitRecord, key: string, spentUsd: number): SpendLimit {
    return {
      id: limit.id,
      agentId: limit.agentId,
      period: limit.period,
      limitUsd: limit.limitUsd,
      softThreshold: limit.softThreshold,
      effectiveLimitUsd: this.effectiveLimit(limit, key),
      periodKey: key,
      spentUsd: roundUsd(spentUsd),
      createdAt: limit.createdAt,
      updatedAt: limit.updatedAt,
    };
  }

  async list(workspaceId: string): Promise<SpendLimit[]> {
    const limits = await this.limitsOf(workspaceId);
    const keys = this.keysAt(this.clock());
    const spent = await this.spentNow(workspaceId, limits, keys);
    return limits.map((limit, index) => this.view(limit, keys[limit.period], spent[index]!));
  }

  private keysAt(now: Date): Record<SpendPeriod, string> {
    return { day: periodKey('day', now), month: periodKey('month', now) };
  }

  /** Creates or replaces the limit of one agent (or the workspace) for one period. */
  async set(workspaceId: string, body: SetSpendLimitBody): Promise<SpendLimit> {
    const db = await this.db(workspaceId);
    if (body.agentId !== null) {
      const agent = await db.selectFrom('agents').select('id').where('id', '=', body.agentId).executeTakeFirst();
      if (!agent) throw new NotFoundError('agent', body.agentId, 'agentId');
    }
    const now = nowIso();
    const existing = await findSpendLimitFor(db, body.agentId, body.period);
    if (existing) {
      // A new limit replaces a one-period raise too: the operator has just said what the limit is.
      await updateSpendLimit(db, existing.id, { limit_usd: body.limitUsd, soft_threshold: body.softThreshold, once_limit_usd: null, once_period_key: null, updated_at: now });
    } else {
      await insertSpendLimit(db, {
        id: newId('lim'),
        agent_id: body.agentId,
        period: body.period,
        limit_usd: body.limitUsd,
        soft_threshold: body.softThreshold,
        once_limit_usd: null,
        once_period_key: null,
        created_at: now,
        updated_at: now,
      });
    }
    const saved = (await findSpendLimitFor(db, body.agentId, body.period))!;
    this.limitsChanged(workspaceId, saved.id);
    const keys = this.keysAt(this.clock());
    const [spent] = await this.spentNow(workspaceId, [saved], keys);
    await this.releaseIfBelow(workspaceId, saved, keys[saved.period], spent!);
    return this.view(saved, keys[saved.period], spent!);
  }

  async remove(workspaceId: string, limitId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const limit = await findSpendLimit(db, limitId);
    if (!limit || !(await deleteSpendLimit(db, limitId))) throw new NotFoundError('spend limit', limitId, 'limitId');
    this.limitsChanged(workspaceId, limitId);
    // Runs waiting on this limit's decision wait for nothing any more.
    const open = await findAlertOfPeriod(db, limitId, periodKey(limit.period, this.clock()), 'limit', 'open');
    if (open) await this.settle(workspaceId, open, 'raised', null, 'limit removed');
  }

  /**
   * The first limit the agent's next call would go over — its own or the workspace's, day or month
   * (all apply; the lowest headroom decides) — or null. Embedded it reads only what is kept in
   * memory once warm; on PostgreSQL, when limits apply, it sums the ledger (one statement).
   */
  async reached(workspaceId: string, agentId: string): Promise<ReachedLimit | null> {
    const limits = (await this.limitsOf(workspaceId)).filter((limit) => limit.agentId === null || limit.agentId === agentId);
    if (limits.length === 0) return null;
    await this.recorded(workspaceId);
    const keys = this.keysAt(this.clock());
    const spent = await this.spentNow(workspaceId, limits, keys);
    for (const [index, limit] of limits.entries()) {
      const key = keys[limit.period];
      const spentUsd = spent[index]!;
      const effectiveLimitUsd = this.effectiveLimit(limit, key);
      if (spentUsd >= effectiveLimitUsd) return { limit, key, spentUsd, effectiveLimitUsd };
    }
    return null;
  }

  /**
   * Records one model call's spend (tokens by kind, cost) and adds it to the running totals; a
   * call that crosses a limit's soft threshold raises that limit's threshold alert, once per period.
   * Resolves once the row is committed (on PostgreSQL with the run log's next batch, at most the
   * run-log writer's flush delay later) and rejects with its failure.
   */
  async record(workspaceId: string, call: ModelCallSpend): Promise<void> {
    const recording = this.recordCall(workspaceId, call);
    const pending = this.recording.get(workspaceId) ?? this.recording.set(workspaceId, new Set()).get(workspaceId)!;
    pending.add(recording);
    try {
      await recording;
    } finally {
      pending.delete(recording);
      if (pending.size === 0) this.recording.delete(workspaceId);
    }
  }

  /**
   * The model calls this process is recording in the workspace, done: their rows written now rather
   * than when the run log's batch is due, their spend in the totals and their threshold alerts raised.
   * The check before the next call waits for this, so it counts the call before it (a row that
   * waited for the batch would otherwise let a fast next call miss it) and a limit's decision never
   * comes before the threshold alert of the call that led to it. A failed record is its caller's.
   */
  private async recorded(workspaceId: string): Promise<void> {
    const pending = this.recording.get(workspaceId);
    if (!pending) return;
    await (await this.workspaces.handle(workspaceId)).database.runLog.flush();
    await Promise.allSettled(pending);
  }

  private async recordCall(workspaceId: string, call: ModelCallSpend): Promise<void> {
    const { database } = await this.workspaces.handle(workspaceId);
    const { db } = database;
    const shared = db.getExecutor().adapter instanceof PostgresAdapter;
    const now = this.clock();
    const keys = this.keysAt(now);
    const limits = (await this.limitsOf(workspaceId)).filter((limit) => limit.agentId === null || limit.agentId === call.agentId);
    // The totals before this call, for the threshold crossing (read before the row is added).
    const before = await Promise.all(limits.map((limit) => this.spentIn(workspaceId, limit.agentId, limit.period, keys[limit.period])));
    // NF-SCALE: on PostgreSQL the row rides the run log's batch (the call's end queues run-log lines
    // too) instead of a statement of its own; it is committed once this resolves, as an insert is.
    await database.runLog.modelCallCost({
      id: newId('mcc'),
      run_id: call.runId,
      agent_id: call.agentId,
      provider: call.provider,
      model: call.model,
      input_tokens: call.usage.inputTokens,
      output_tokens: call.usage.outputTokens,
      cache_read_tokens: call.usage.cacheReadTokens ?? 0,
      cache_write_tokens: call.usage.cacheWriteTokens ?? 0,
      cost_usd: call.costUsd,
      priced: call.priced ? 1 : 0,
      created_at: now.toISOString(),
    });
    this.totals.add(workspaceId, call.agentId, keys, call.costUsd);
    for (const [index, limit] of limits.entries()) {
      const key = keys[limit.period];
      const threshold = this.effectiveLimit(limit, key) * limit.softThreshold;
      const spentBefore = before[index]!;
      const spentAfter = spentBefore + call.costUsd;
      // Embedded this process sees every call, so the call that crosses the threshold is exact. On
      // PostgreSQL two processes' calls can cross it together with neither's own view crossing:
      // there a view past the threshold asks once per period whether its alert exists yet.
      const seen = `${limit.id}|${key}`;
      const crossed = shared ? spentAfter >= threshold && !this.thresholdSeen.has(seen) : spentBefore < threshold && spentAfter >= threshold;
      if (!crossed) continue;
      if (!(await findAlertOfPeriod(db, limit.id, key, 'threshold'))) {
        await this.raise(workspaceId, { kind: 'threshold', limit, key, runId: call.runId, spentUsd: spentAfter, limitUsd: this.effectiveLimit(limit, key) });
      }
      if (shared) {
        if (this.thresholdSeen.size >= THRESHOLDS_SEEN) this.thresholdSeen.clear();
        this.thresholdSeen.add(seen);
      }
    }
  }

  /**
   * A run reached `reached`: the limit's open decision (raised now if there is none), with the run
   * among those waiting on it when it `waits` (the built-in loop pauses it; the model proxy refuses
   * an external runner's call instead, and its runtime ends the turn).
   */
  async openDecision(workspaceId: string, runId: string, reached: ReachedLimit, options: { waits: boolean }): Promise<BudgetAlert> {
    const db = await this.db(workspaceId);
    let alert = await findAlertOfPeriod(db, reached.limit.id, reached.key, 'limit', 'open');
    if (!alert) {
      alert = await this.raise(workspaceId, { kind: 'limit', limit: reached.limit, key: reached.key, runId, spentUsd: reached.spentUsd, limitUsd: reached.effectiveLimitUsd });
    }
    const waiting = this.waiting.get(alert.id) ?? new Set<string>();
    if (!options.waits) {
      if (alert.runId === runId) this.events.publish(workspaceId, 'budget.alert', this.toView(alert));
    } else if (!waiting.has(runId)) {
      waiting.add(runId);
      this.waiting.set(alert.id, waiting);
      this.events.publish(workspaceId, 'budget.alert', this.toView(alert));
    }
    return this.toView(alert);
  }

  /** A run that ended while it waited no longer waits (its decision stays open for the operator). */
  forgetRun(runId: string): void {
    for (const runs of this.waiting.values()) runs.delete(runId);
  }

  async alerts(workspaceId: string, state: 'open' | 'all'): Promise<BudgetAlert[]> {
    return (await listBudgetAlerts(await this.db(workspaceId), state)).map((alert) => this.toView(alert));
  }

  /**
   * An operator's budget decision on a limit alert: raise the limit for this period only, raise it
   * for good (both resume the runs waiting, which check again), or stop the runs waiting; or dismiss
   * a threshold alert. A decided alert cannot be decided again (409).
   */
  async decide(workspaceId: string, alertId: string, body: BudgetDecisionBody, operatorId: string, actor?: AuditActor): Promise<BudgetAlert> {
    const db = await this.db(workspaceId);
    const alert = await findBudgetAlert(db, alertId);
    if (!alert) throw new NotFoundError('budget alert', alertId, 'alertId');
    if (alert.state !== 'open') throw new ConflictError('alertId', `budget alert ${alertId} was already decided (${alert.state})`);
    if (alert.kind === 'threshold' && body.decision !== 'dismiss') throw new ValidationError('decision', 'a threshold alert can only be dismissed; decisions are taken when the limit is reached');
    if (alert.kind === 'limit' && body.decision === 'dismiss') throw new ValidationError('decision', 'a budget decision is raise_once, raise or stop; runs are waiting on it');
    if (body.decision === 'dismiss') return this.settle(workspaceId, alert, 'dismissed', null, operatorId, actor);
    if (body.decision === 'stop') return this.settle(workspaceId, alert, 'stopped', null, operatorId, actor);
    const limit = await findSpendLimit(db, alert.limitId);
    if (!limit) throw new ConflictError('alertId', `the spend limit of budget alert ${alertId} was removed`);
    const inForce = this.effectiveLimit(limit, alert.periodKey);
    if (body.limitUsd <= inForce) throw new ValidationError('limitUsd', `must be above the limit in force (${inForce} USD) to let the waiting runs go on`);
    const now = nowIso();
    if (body.decision === 'raise_once') await updateSpendLimit(db, limit.id, { once_limit_usd: body.limitUsd, once_period_key: alert.periodKey, updated_at: now });
    else await updateSpendLimit(db, limit.id, { limit_usd: body.limitUsd, once_limit_usd: null, once_period_key: null, updated_at: now });
    this.limitsChanged(workspaceId, limit.id);
    return this.settle(workspaceId, alert, body.decision === 'raise_once' ? 'raised_once' : 'raised', body.limitUsd, operatorId, actor);
  }

  /** Closes an alert and resumes (or, `stopped`, cancels) the runs waiting on it. */
  private async settle(workspaceId: string, alert: BudgetAlertRecord, state: BudgetAlertRecord['state'], decidedLimitUsd: number | null, decidedBy: string, actor?: AuditActor): Promise<BudgetAlert> {
    const db = await this.db(workspaceId);
    const decidedAt = nowIso();
    const close = async (trx: Kysely<WorkspaceSchema>) => {
      if (!(await decideBudgetAlert(trx, alert.id, { state, decidedLimitUsd, decidedBy, decidedAt }))) {
        throw new ConflictError('alertId', `budget alert ${alert.id} was already decided`);
      }
    };
    // TEAM-3: a person's decision is in the audit log; a close the server makes itself (a limit changed or removed) follows an act already recorded.
    if (actor) {
      const summary = `Budget ${alert.kind === 'threshold' ? 'alert' : 'decision'}: ${state.replace('_', ' ')}${decidedLimitUsd !== null ? ` to ${decidedLimitUsd} USD` : ''} (${alert.period} limit${alert.agentId ? ` of agent ${alert.agentId}` : ''})`;
      await withAuditEntry(db, { kind: `budget.${state}`, actor, workspaceId, subject: { type: 'budgetAlert', id: alert.id }, summary, details: { state, decidedLimitUsd, limitId: alert.limitId, runId: alert.runId } }, close);
    } else {
      await close(db);
    }
    const settled: BudgetAlertRecord = { ...alert, state, decidedLimitUsd, decidedBy, decidedAt };
    const view = { ...this.toView(settled), waitingRunIds: [] };
    this.events.publish(workspaceId, 'budget.alert', view);
    this.release(workspaceId, alert.id, state);
    return view;
  }

  /** The runs paused here on a decided alert go on (they check again) or, `stopped`, are cancelled. */
  private release(workspaceId: string, alertId: string, state: BudgetAlertRecord['state']): void {
    const runs = [...(this.waiting.get(alertId) ?? [])];
    this.waiting.delete(alertId);
    for (const runId of runs) {
      if (state === 'stopped') this.runControl?.cancel(runId);
      else this.runControl?.resume(workspaceId, runId);
    }
  }

  /** A limit set above what its open decision's runs spent lets them go on, as a raise would. */
  private async releaseIfBelow(workspaceId: string, limit: SpendLimitRecord, key: string, spent: number): Promise<void> {
    const open = await findAlertOfPeriod(await this.db(workspaceId), limit.id, key, 'limit', 'open');
    if (!open) return;
    if (spent < this.effectiveLimit(limit, key)) await this.settle(workspaceId, open, 'raised', limit.limitUsd, 'limit changed');
  }

  private async raise(
    workspaceId: string,
    alert: { kind: 'threshold' | 'limit'; limit: SpendLimitRecord; key: string; runId: string; spentUsd: number; limitUsd: number },
  ): Promise<BudgetAlertRecord> {
    const record: BudgetAlertRecord = {
      id: newId('bud'),
      kind: alert.kind,
      limitId: alert.limit.id,
      agentId: alert.limit.agentId,
      period: alert.limit.period,
      periodKey: alert.key,
      runId: alert.runId,
      spentUsd: roundUsd(alert.spentUsd),
      limitUsd: alert.limitUsd,
      state: 'open',
      decidedLimitUsd: null,
      decidedBy: null,
      decidedAt: null,
      createdAt: nowIso(),
    };
    await insertBudgetAlert(await this.db(workspaceId), {
      id: record.id,
      kind: record.kind,
      limit_id: record.limitId,
      agent_id: record.agentId,
      period: record.period,
      period_key: record.periodKey,
      run_id: record.runId,
      spent_usd: record.spentUsd,
      limit_usd: record.limitUsd,
      state: record.state,
      decided_limit_usd: null,
      decided_by: null,
      decided_at: null,
      created_at: record.createdAt,
    });
    if (alert.kind === 'threshold') this.events.publish(workspaceId, 'budget.alert', this.toView(record));
    return record;
  }

  private toView(alert: BudgetAlertRecord): BudgetAlert {
    return { ...alert, waitingRunIds: [...(this.waiting.get(alert.id) ?? [])] };
  }

  /**
   * Applies the price table again to the calls recorded over [from, to] (whole UTC days), from their
   * tokens by kind; the running totals are summed again afterwards.
   */
  async reprice(workspaceId: string, from: string, to: string): Promise<RepriceOutcome> {
    const { start, end } = dayRange(from, to);
    const outcome = await repriceCalls(await this.db(workspaceId), start, end, undefined);
    this.totals.forget(workspaceId);
    return { ...outcome, beforeUsd: roundUsd(outcome.beforeUsd), afterUsd: roundUsd(outcome.afterUsd) };
  }

  /** Spend grouped by agent, space, model or day over [from, to] (whole UTC days). */
  async spend(workspaceId: string, grouping: SpendGrouping, from: string, to: string): Promise<SpendRow[]> {
    const { start, end } = dayRange(from, to);
    return spendBy(await this.db(workspaceId), grouping, start, end);
  }
}

/** Threshold alerts remembered per process before the set starts again (each forgotten one costs one read). */
const THRESHOLDS_SEEN = 10_000;

/** The ISO bounds [start, end) of the whole UTC days `from` to `to`. */
function dayRange(from: string, to: string): { start: string; end: string } {
  return { start: periodBounds('day', from).start, end: periodBounds('day', to).end };
}

/** Dollars as shown: to a hundredth of a cent, the precision limits are set in. */
function roundUsd(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
