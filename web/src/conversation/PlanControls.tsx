import { useState } from 'react';
import { errorMessage } from '../api/client';
import { usePlanAction } from '../api/hooks';
import type { Plan } from '../api/types';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';
import { formatDuration } from '../ui/cost-time';
import { usePlanActuals } from './plan-actuals';
import { canResume, estimateAndSpent, planOutcome, planProgress } from './plan-view';

/**
 * PLAN-8: a started plan's outcome in words ("Stopped — 2 of 4 steps done"), Stop behind a
 * confirmation (it cancels running steps and nothing else starts), and Resume for a stopped or
 * failed plan. Shared by the side panel's Tasks row and Plan Studio so both say the same thing.
 */
export function PlanControls({ ws, plan, testId, extra }: { ws: string; plan: Plan; testId: string; extra?: React.ReactNode }) {
  const action = usePlanAction(ws);
  const [confirmingStop, setConfirmingStop] = useState(false);
  // TEAM-2: stopping and resuming a plan are a member's; a viewer sees its progress only.
  const { canDecide } = useWorkspaceRole(ws);
  const actuals = usePlanActuals(ws, plan);
  const progress = planProgress(plan);
  if (!progress) return null;
  const outcome = planOutcome(plan);
  return (
    <div className="plan-controls">
      <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={progress.total} aria-valuenow={outcome.done} aria-label="Plan progress">
        <div className={`progress-bar progress-${outcome.tone}`} style={{ width: `${progress.total ? (100 * outcome.done) / progress.total : 0}%` }} />
      </div>
      <div className="inline small wrap">
        <span data-testid={testId} data-status={plan.status}>
          {outcome.label}
        </span>
        <span className="spacer" />
        {extra}
        {canDecide && progress.active && !confirmingStop ? (
          <button type="button" className="btn btn-danger btn-small" onClick={() => setConfirmingStop(true)} disabled={action.isPending}>
            Stop…
          </button>
        ) : null}
        {canDecide && canResume(plan) ? (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => action.mutate({ planId: plan.id, action: 'resume' })}
            disabled={action.isPending}
            title="Runs the stopped, failed and blocked steps again; finished steps are kept"
          >
            Resume
          </button>
        ) : null}
      </div>
      {canDecide && progress.active && confirmingStop ? (
        <div className="confirm" role="alertdialog" aria-label="Stop the plan?">
          <span>Stop this plan? Running steps are cancelled and the rest will not start. You can resume it later.</span>
          <button
            type="button"
            className="btn btn-danger btn-small"
            autoFocus
            disabled={action.isPending}
            onClick={() => action.mutate({ planId: plan.id, action: 'cancel' }, { onSettled: () => setConfirmingStop(false) })}
          >
            Stop plan
          </button>
          <button type="button" className="btn btn-small" onClick={() => setConfirmingStop(false)}>
            Keep running
          </button>
        </div>
      ) : null}
      <div className="small muted plan-cost-line" data-testid={`${testId}-cost`}>
        {estimateAndSpent(plan.costEstimate, actuals.total.costUsd)}
        {actuals.total.durationMs ? ` · steps took ${formatDuration(actuals.total.durationMs)}` : ''}
      </div>
      {action.isError ? <FieldError message={errorMessage(action.error)} /> : null}
    </div>
  );
}
