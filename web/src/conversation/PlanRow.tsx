import { errorMessage } from '../api/client';
import { usePlanAction } from '../api/hooks';
import type { Agent, Plan } from '../api/types';
import { Badge } from '../ui/badges';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';
import { nodeStateWord, planStatusWord } from '../ui/words';
import { FinishedTurn } from './FinishedTurn';
import type { PlanStepView } from './plan-steps';
import { estimateAndSpent, estimateWords, isAwaitingApproval, planOutcome, planProgress, planStatusTone, stepCount } from './plan-view';
import { isActive, LiveTurn } from './RunBlocks';

const STEP_TONES: Record<string, 'neutral' | 'info' | 'ok' | 'warn' | 'bad'> = { running: 'info', done: 'ok', failed: 'bad', blocked: 'warn', cancelled: 'neutral' };

/**
 * PLAN-3: the plan as one compact row — goal, status, step count, Open, "Approve and run". PLAN-8:
 * once it runs, its steps (the prompt each was given, the live or finished turn) fold under the row.
 */
export function PlanRow({ ws, plan, steps = [], agentById, onOpen }: { ws: string; plan: Plan; steps?: PlanStepView[]; agentById?: Map<string, Agent>; onOpen: () => void }) {
  const action = usePlanAction(ws);
  // TEAM-2: approving a plan is a member's; a viewer can still open it.
  const { canDecide } = useWorkspaceRole(ws);
  const awaiting = isAwaitingApproval(plan) && canDecide;
  const invalid = plan.errors.length > 0;
  const progress = planProgress(plan);
  const count = stepCount(plan);
  const running = steps.filter((step) => step.node.state === 'running');
  return (
    <div className="plan-row-wrap" data-testid="plan-row-wrap">
      <div className="plan-row" data-testid="plan-row" data-plan-id={plan.id}>
        <span className="plan-row-icon" aria-hidden="true">
          ◇
        </span>
        <span className="plan-row-goal" title={plan.goal}>
          {plan.goal}
        </span>
        <Badge tone={planStatusTone(plan.status)}>{planStatusWord(plan.status)}</Badge>
        <span className="muted small">
          {count} step{count === 1 ? '' : 's'}
        </span>
        {progress ? <span className="muted small">{planOutcome(plan).label}</span> : null}
        {/* TRUTH-3: the estimate (frozen once approved) with what the steps' runs recorded beside it. */}
        <span className="muted small" data-testid="plan-row-cost">
          {progress ? estimateAndSpent(plan.costEstimate, plan.actualCost.usd) : `estimated ${estimateWords(plan.costEstimate)}`}
        </span>
        <span className="spacer" />
        <button type="button" className="btn btn-small" onClick={onOpen}>
          Open
        </button>
        {awaiting ? (
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={invalid || action.isPending}
            title={invalid ? 'The plan has validation errors; open it to see them' : undefined}
            onClick={() => action.mutate({ planId: plan.id, action: 'approve' })}
          >
            Approve and run
          </button>
        ) : null}
        {action.isError ? <FieldError message={errorMessage(action.error)} /> : null}
      </div>
      {steps.length > 0 ? (
        <details className="plan-steps" data-testid="plan-steps">
          <summary>
            Steps{running.length ? ` — now: ${running.map((step) => step.node.title).join(', ')}` : ''}
          </summary>
          <ol>
            {steps.map((step) => (
              <li key={step.node.key} className="plan-step" data-testid="plan-step" data-node-key={step.node.key} data-state={step.node.state}>
                <div className="inline small">
                  <strong>{step.node.title}</strong>
                  <Badge tone={STEP_TONES[step.node.state] ?? 'neutral'}>{nodeStateWord(step.node.state)}</Badge>
                  {step.node.error ? <span className="muted">{step.node.error}</span> : null}
                </div>
                {step.prompt ? (
                  <details className="plan-step-prompt">
                    <summary>What the agent was asked</summary>
                    <pre>{step.prompt.content}</pre>
                  </details>
                ) : null}
                {step.run && isActive(step.run) ? (
                  <LiveTurn ws={ws} run={step.run} agent={agentById?.get(step.run.agentId)} />
                ) : step.reply && step.reply.runId ? (
                  <FinishedTurn ws={ws} runId={step.reply.runId} conversationId={plan.conversationId} replyText={step.reply.content} />
                ) : null}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </div>
  );
}
