import type { AgentState } from '../../schemas/agent.js';
import type { RunLiveness, RunState } from '../../schemas/run.js';

/** The facts about an agent's runs that its state is derived from. */
export interface RunFacts {
  /** The newest run (by creation), or null when the agent never ran. */
  newest: { state: RunState; liveness: RunLiveness } | null;
  /** Whether any run of the agent is in progress. */
  anyRunning: boolean;
}

/**
 * AG-3: an agent's state is derived from its newest run logs on every read, never stored.
 * Order matters and is deliberate:
 * 1. no run at all → `neverRun`;
 * 2. the newest run's liveness is blocked/stalled/looping → `blocked` (it needs someone, even
 *    while technically in progress);
 * 3. any run in progress → `running`;
 * 4. the newest run failed, or its liveness is failed/dead → `failed`;
 * 5. otherwise → `idle`. `queued`/`completed` are run states; the registry never reports them.
 */
export function deriveAgentState(facts: RunFacts): AgentState {
  const { newest, anyRunning } = facts;
  if (!newest) return 'neverRun';
  if (newest.liveness === 'blocked' || newest.liveness === 'stalled' || newest.liveness === 'looping') return 'blocked';
  if (anyRunning) return 'running';
  if (newest.state === 'failed' || newest.liveness === 'failed' || newest.liveness === 'dead') return 'failed';
  return 'idle';
}
