import { usePresence } from '../api/hooks';
import type { Agent, Conversation, Plan, Run } from '../api/types';
import { modeLabelFor } from '../app/picker';
import { Badge, PresenceDot } from '../ui/badges';
import { runStateWord } from '../ui/words';
import { Empty } from '../ui/states';
import { PlanControls } from './PlanControls';
import { planProgress } from './plan-view';

const RUN_TONES: Record<string, 'neutral' | 'info' | 'ok' | 'warn' | 'bad'> = {
  queued: 'neutral',
  running: 'info',
  completed: 'ok',
  failed: 'bad',
  cancelled: 'neutral',
};

/** The conversation's side panel: Tasks (goal + progress, PLAN-8), runs, presence (AG-4). */
export function SidePanel({
  ws,
  conversation,
  plans,
  runs,
  agents,
  onOpenPlan,
  open = false,
  onClose,
}: {
  ws: string;
  conversation: Conversation;
  plans: Plan[];
  runs: Run[];
  agents: Agent[];
  onOpenPlan: (planId: string) => void;
  /** On narrow screens the panel is a sheet, shown only while open. */
  open?: boolean;
  onClose?: () => void;
}) {
  const presence = usePresence(ws);
  // Plans arrive oldest → newest (usePlans): the Tasks panel follows the newest plan that has started.
  const current = [...plans].reverse().find((plan) => planProgress(plan) !== null) ?? null;
  const goal = current?.goal ?? conversation.goal ?? null;
  const agentName = (id: string) => agents.find((agent) => agent.id === id)?.name ?? id;
  return (
    <aside id="side-panel" className={`side-panel${open ? ' open' : ''}`} aria-label="Tasks and runs">
      {onClose ? (
        <button type="button" className="btn btn-ghost btn-small panel-close" onClick={onClose}>
          Close
        </button>
      ) : null}
      <section aria-labelledby="tasks-title">
        <h3 id="tasks-title">Tasks</h3>
        {goal ? (
          <div className="goal-row" data-testid="goal-row" data-plan-id={current?.id}>
            <div className="goal-text">{goal}</div>
            {current ? (
              <PlanControls
                ws={ws}
                plan={current}
                testId="goal-progress"
                extra={
                  <button type="button" className="btn btn-ghost btn-small" onClick={() => onOpenPlan(current.id)}>
                    Open plan
                  </button>
                }
              />
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
                <Badge tone={RUN_TONES[run.state] ?? 'neutral'}>{runStateWord(run.state)}</Badge>
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
