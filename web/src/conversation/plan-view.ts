import type { CostEstimate, Plan } from '../api/types';

/** Statuses after which a plan no longer waits for the operator's decision. */
const DECIDED = new Set(['approved', 'rejected', 'superseded', 'executing', 'running', 'completed', 'done', 'succeeded', 'failed', 'cancelled']);
/** Statuses of a plan whose execution is under way. */
const EXECUTING = new Set(['approved', 'executing', 'running']);
/** Node states a step can still be cancelled from. */
export const CANCELLABLE_NODE_STATES = new Set(['pending', 'ready', 'queued', 'running', 'blocked']);

/** True while the plan waits for the operator's decision (`proposed`). */
export function isAwaitingApproval(plan: Plan): boolean {
  return !DECIDED.has(plan.status);
}

export function planErrorText(error: Plan['errors'][number]): string {
  return error.nodeKey && !error.message.includes(error.nodeKey) ? `${error.nodeKey}: ${error.message}` : error.message;
}

export function planStatusTone(status: string): 'neutral' | 'info' | 'ok' | 'warn' | 'bad' {
  if (['approved', 'running', 'executing'].includes(status)) return 'info';
  if (['completed', 'done', 'succeeded'].includes(status)) return 'ok';
  if (['rejected', 'failed'].includes(status)) return 'bad';
  if (['cancelled', 'superseded'].includes(status)) return 'neutral';
  return 'warn';
}

export interface PlanProgress {
  settled: number;
  total: number;
  state: string;
  /** True while steps are still running (a Stop button makes sense). */
  active: boolean;
}

/** Execution progress once the plan was approved; null before (a proposal has no progress). */
export function planProgress(plan: Plan): PlanProgress | null {
  if (!plan.progress || isAwaitingApproval(plan) || plan.status === 'rejected' || plan.status === 'superseded') return null;
  return { settled: plan.progress.settled, total: plan.progress.total, state: plan.status, active: EXECUTING.has(plan.status) };
}

/** What a started plan's progress means in words: "Stopped — 2 of 4 steps done", never a stopped plan as "4/4 settled". */
export function planOutcome(plan: Plan): { done: number; label: string; tone: 'info' | 'ok' | 'warn' | 'bad' } {
  const total = plan.progress.total;
  const count = (state: string) => plan.nodes.filter((node) => node.state === state).length;
  const done = count('done');
  const of = `${done} of ${total} step${total === 1 ? '' : 's'} done`;
  switch (plan.status) {
    case 'completed':
      return { done, label: `Finished — ${of}`, tone: 'ok' };
    case 'cancelled':
      return { done, label: `Stopped — ${of}`, tone: 'warn' };
    case 'failed': {
      const failed = count('failed');
      return { done, label: `Failed — ${of}${failed ? `, ${failed} failed` : ''}`, tone: 'bad' };
    }
    default: {
      const running = count('running');
      return { done, label: `Running — ${of}${running ? `, ${running} in progress` : ''}`, tone: 'info' };
    }
  }
}

/** A stopped or failed plan can run its unfinished steps again (POST …/plans/:id/resume, PLAN-8). */
export function canResume(plan: Plan): boolean {
  return (plan.status === 'cancelled' || plan.status === 'failed') && plan.nodes.some((node) => node.state !== 'done');
}

export function stepCount(plan: Plan): number {
  return plan.stepCount ?? plan.nodes.length;
}

/** A node's estimated cost in US dollars, or null (unknown price). */
export function nodeCost(estimate: CostEstimate | null, key: string): number | null {
  return estimate?.perNode.find((item) => item.key === key)?.usd ?? null;
}

export function nodeTokens(estimate: CostEstimate | null, key: string): { inputTokens: number; outputTokens: number } | null {
  const entry = estimate?.perNode.find((item) => item.key === key);
  return entry && entry.inputTokens !== null && entry.outputTokens !== null ? { inputTokens: entry.inputTokens, outputTokens: entry.outputTokens } : null;
}

export function totalCost(estimate: CostEstimate | null): { amount: number | null; inputTokens: number | null; outputTokens: number | null } {
  if (!estimate) return { amount: null, inputTokens: null, outputTokens: null };
  return { amount: estimate.total.usd, inputTokens: estimate.total.inputTokens, outputTokens: estimate.total.outputTokens };
}

export function formatCost(value: number | null, currency: string): string {
  if (value === null || !Number.isFinite(value)) return 'unknown';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency || 'USD', maximumFractionDigits: value < 1 ? 4 : 2 }).format(value);
  } catch {
    return `${value.toFixed(4)} ${currency}`;
  }
}

export function formatTokens(count: number | null): string {
  if (count === null) return '?';
  return count >= 10_000 ? `${Math.round(count / 1000)}k` : String(count);
}

const BASIS_LABELS: Record<string, string> = {
  history: "Estimated from this agent's earlier runs",
  noHistory: 'This agent has no run history yet: nothing to estimate from',
  notRecorded: 'Approved before estimates were kept with the approval',
};

/** Where the estimate comes from, and whether it is the one frozen with the approval (TRUTH-3). */
export function basisLabel(estimate: CostEstimate): string {
  const basis = BASIS_LABELS[estimate.basis] ?? estimate.basis;
  return estimate.frozenAt && estimate.basis !== 'notRecorded' ? `${basis}; frozen at approval` : basis;
}

/** The plan's estimate in words: a figure, or "unknown (<why>)" as the server says it — never "$0.00" for unknown. */
export function estimateWords(estimate: CostEstimate | null): string {
  if (!estimate) return 'unknown';
  return estimate.total.usd === null ? `unknown (${estimate.unknownReason ?? 'no estimate'})` : formatCost(estimate.total.usd, estimate.currency);
}

/** A step's estimate in words, like {@link estimateWords}. */
export function nodeEstimateWords(estimate: CostEstimate | null, key: string): string {
  const usd = nodeCost(estimate, key);
  if (usd !== null || !estimate) return formatCost(usd, estimate?.currency ?? 'USD');
  return `unknown (${estimate.unknownReason ?? 'no estimate'})`;
}

/** "estimated $0.2501 · spent $0.0020": the estimate (frozen once approved) with the recorded actual beside it. */
export function estimateAndSpent(estimate: CostEstimate | null, spentUsd: number): string {
  return `estimated ${estimateWords(estimate)} · spent ${formatCost(spentUsd, 'USD')}`;
}
