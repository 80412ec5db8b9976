import { usePresence } from '../api/hooks';
import type { Agent, Conversation, Plan } from '../api/types';
import { PresenceDot } from '../ui/badges';
import { Empty } from '../ui/states';
import { PlanControls } from './PlanControls';
import { PeopleHere } from './PeopleHere';
import { PublishPanel } from './publish/PublishPanel';
import { planProgress } from './plan-view';
import { RunTreePanel } from './RunTreePanel';

/** The conversation's side panel: Tasks (goal + progress, PLAN-8), the run tree with cost (HAR-6), where the work went (CHG-2), people and agents here (AG-4). */
export function SidePanel({
  ws,
  conversation,
  plans,
  agents,
  onOpenPlan,
  open = false,
  onClose,
}: {
  ws: string;
  conversation: Conversation;
  plans: Plan[];
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
      <RunTreePanel ws={ws} conversationId={conversation.id} agents={agents} />
      <PublishPanel ws={ws} conversationId={conversation.id} />
      <section aria-labelledby="presence-title">
        <h3 id="presence-title">Who is here</h3>
        <PeopleHere ws={ws} conversationId={conversation.id} />
        <h4 className="small">Agents</h4>
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
