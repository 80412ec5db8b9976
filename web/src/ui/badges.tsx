import type { AgentState, PresenceStatus } from '../api/types';

const STATE_LABELS: Record<AgentState, string> = {
  neverRun: 'never run',
  running: 'running',
  failed: 'failed',
  blocked: 'blocked',
  idle: 'idle',
};

/** AG-3: the state derived from the agent's newest runs. */
export function AgentStateBadge({ state }: { state: AgentState }) {
  return (
    <span className={`badge badge-state-${state}`} data-testid="agent-state" title={`Derived state: ${STATE_LABELS[state] ?? state}`}>
      {STATE_LABELS[state] ?? state}
    </span>
  );
}

/** AG-4: the live presence picture. */
export function PresenceDot({ status }: { status: PresenceStatus | 'offline' | undefined }) {
  const value = status ?? 'offline';
  const label = value === 'blocked' ? 'waiting on you' : value === 'offline' ? 'no presence' : value;
  return (
    <span className={`presence presence-${value}`} data-testid="presence" title={`Presence: ${label}`}>
      <span className="presence-dot" aria-hidden="true" />
      {label}
    </span>
  );
}

export function Badge({ children, tone = 'neutral', title }: { children: string; tone?: 'neutral' | 'info' | 'ok' | 'warn' | 'bad'; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}
