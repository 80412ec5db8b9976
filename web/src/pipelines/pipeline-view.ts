/** Pure helpers of the pipelines pages (PIPE-1): durations, triggers and node facts in words. */

/** What a node is doing, as a tone for its badge. */
export function runStatusTone(status: string): 'ok' | 'bad' | 'info' | 'neutral' {
  if (status === 'completed' || status === 'done') return 'ok';
  if (status === 'failed' || status === 'blocked') return 'bad';
  if (status === 'running' || status === 'queued') return 'info';
  return 'neutral';
}

/** `1.2 s`, `3 min 4 s`, `2 h 5 min`; null when it has not started. Ended-less durations run to `now`. */
export function formatDuration(startedAt: string | null, endedAt: string | null, now: number): string | null {
  if (!startedAt) return null;
  const ms = Math.max(0, (endedAt ? Date.parse(endedAt) : now) - Date.parse(startedAt));
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

export function formatUsd(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** A trigger in a few words: `manual`, `schedule 30 2 * * 1-5`, `webhook`, `on ticket.done`. */
export function triggerLabel(trigger: { type: string; config: Record<string, unknown> }): string {
  if (trigger.type === 'schedule') return `schedule ${String(trigger.config.cron ?? '')}`.trim();
  if (trigger.type === 'event') return `on ${String(trigger.config.event ?? '?')}`;
  return trigger.type;
}

/** Where a pipeline came from: the API, or a workspace file. */
export function sourceLabel(source: { kind: string; path?: unknown }): string {
  if (source.kind === 'file') return `file ${typeof source.path === 'string' ? source.path : ''}`.trim();
  if (source.kind === 'orchestration') return 'orchestration';
  return source.kind === 'api' ? 'API' : source.kind;
}

/**
 * A node held by ORC-4's budget gate stays queued with one of these prefixes on its error (copies of the
 * engine's `HELD_PREFIX` and `BUDGET_WAIT_PREFIX`: web code cannot import server code).
 */
export const HELD_PREFIX = 'waiting for the operator: ';
export const BUDGET_WAIT_PREFIX = 'waiting for budget room: ';

/** Why a node is held: the operator must act, or it only waits for a sibling to free budget room. */
export function holdKind(node: { state: string; error: string | null }): 'operator' | 'budgetRoom' | null {
  if (node.state !== 'queued') return null;
  const error = node.error ?? '';
  if (error.startsWith(HELD_PREFIX)) return 'operator';
  if (error.startsWith(BUDGET_WAIT_PREFIX)) return 'budgetRoom';
  return null;
}

export function isHeld(node: { state: string; error: string | null }): boolean {
  return holdKind(node) !== null;
}

/** The inspector's label for a held node's reason. */
export function holdLabel(node: { state: string; error: string | null }): string {
  return holdKind(node) === 'budgetRoom' ? 'Waiting for budget room' : 'Held';
}

/** The conversation a node's output points at (a room a messaging.createSpace node opened). */
export function outputConversation(output: unknown): string | null {
  if (output && typeof output === 'object' && 'conversationId' in output) {
    const value = (output as { conversationId: unknown }).conversationId;
    return typeof value === 'string' ? value : null;
  }
  return null;
}

export const CANCELLABLE_PIPELINE_NODE_STATES: ReadonlySet<string> = new Set(['pending', 'queued', 'running']);
