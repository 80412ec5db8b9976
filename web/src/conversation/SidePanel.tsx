import { errorMessage } from '../api/client';
import { usePlanAction, usePresence } from '../api/hooks';
import type { Agent, Conversation, Plan, Run } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { Badge, PresenceDot } from '../ui/badges';
import { Empty, FieldError } from '../ui/states';
import { planProgress } from './plan-view';

const RUN_TONES: Record<string, 'neutral' | 'info' | 'ok' | 'warn' | 'bad'> = {
  queued: 'neutral',
  running: 'info',
  completed: 'ok',
  failed: 'bad',
  cancelled: 'neutral',
};

/** The conversation's side panel: Tasks (goal + progress, PLAN-8), runs, presence (AG-4). */
export function SidePanel({ ws, conversation, plans, runs, agents, onOpenPlan }: { ws: string; conversation: Conversation; plans: Plan[]; runs: Run[]; agents: Agent[]; onOpenPlan: (planId: string) => void }) {
  const presence = usePresence(ws);
  const action = usePlanAction(ws);
  const executing = [...plans].reverse().find((plan) => planProgress(plan) !== null) ?? null;
  const progress = executing ? planProgress(executing) : null;
  const goal = conversation.goal ?? executing?.goal ?? null;
  const agentName = (id: string) => agents.find((agent) => agent.id === id)?.name ?? id;
  return (
    <aside className="side-panel" aria-label="Tasks and runs">
      <section aria-labelledby="tasks-title">
        <h3 id="tasks-title">Tasks</h3>
        {goal ? (
          <div className="goal-row" data-testid="goal-row">
            <div className="goal-text">{goal}</div>
            {executing && progress ? (
              <>
                <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={progress.total} aria-valuenow={progress.settled} aria-label="Plan progress">
                  <div className="progress-bar" style={{ width: `${progress.total ? (100 * progress.settled) / progress.total : 0}%` }} />
                </div>
                <div className="inline small">
                  <span data-testid="goal-progress">
                    {progress.settled}/{progress.total}
                  </span>
                  <span className="muted">{progress.state}</span>
                  <span className="spacer" />
                  <button type="button" className="btn btn-ghost btn-small" onClick={() => onOpenPlan(executing.id)}>
                    Open plan
                  </button>
                  {progress.active ? (
                    <button type="button" className="btn btn-danger btn-small" onClick={() => action.mutate({ planId: executing.id, action: 'cancel' })} disabled={action.isPending}>
                      Stop
                    </button>
                  ) : null}
                </div>
                {action.isError ? <FieldError message={errorMessage(action.error)} /> : null}
              </>
            ) : (
              <div className="muted small">No plan running.</div>
            )}
          </div>
        ) : (
          <Empty title="No goal yet">An approved plan's goal becomes the conversation's goal.</Empty>
        )}
      </section>
      <section aria-labelledby="runs-title">
        <h3 id="runs-title">Runs</h3>
        {runs.length === 0 ? (
          <div className="muted small">No runs in this conversation.</div>
        ) : (
          <ul className="run-list">
            {[...runs].reverse().slice(0, 20).map((run) => (
              <li key={run.id} style={{ paddingLeft: `${Math.min(run.depth, 4) * 12}px` }}>
                <span>{agentName(run.agentId)}</span>
                <Badge tone={RUN_TONES[run.state] ?? 'neutral'}>{run.state}</Badge>
                {run.mode ? <span className="muted small">{modeLabelFor(run.mode, run.autonomy)}</span> : null}
                {run.liveness !== 'ok' ? <Badge tone="warn">{run.liveness}</Badge> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="presence-title">
        <h3 id="presence-title">Presence</h3>
        {presence.isError ? (
          <div className="muted small">Presence could not be loaded.</div>
        ) : (
          <ul className="presence-list">
            {agents.map((agent) => (
              <li key={agent.id}>
                <span>{agent.name}</span>
                <PresenceDot status={presence.data?.presence.find((entry) => entry.agentId === agent.id)?.status} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </aside>
  );
}
