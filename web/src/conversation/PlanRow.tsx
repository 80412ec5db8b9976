import { errorMessage } from '../api/client';
import { usePlanAction } from '../api/hooks';
import type { Plan } from '../api/types';
import { Badge } from '../ui/badges';
import { FieldError } from '../ui/states';
import { isAwaitingApproval, planProgress, planStatusTone, stepCount } from './plan-view';

/** PLAN-3: the plan as one compact row — goal, status, step count, Open, "Approve and run". */
export function PlanRow({ ws, plan, onOpen }: { ws: string; plan: Plan; onOpen: () => void }) {
  const action = usePlanAction(ws);
  const awaiting = isAwaitingApproval(plan);
  const invalid = plan.errors.length > 0;
  const progress = planProgress(plan);
  const steps = stepCount(plan);
  return (
    <div className="plan-row" data-testid="plan-row" data-plan-id={plan.id}>
      <span className="plan-row-icon" aria-hidden="true">
        ◇
      </span>
      <span className="plan-row-goal" title={plan.goal}>
        {plan.goal}
      </span>
      <Badge tone={planStatusTone(plan.status)}>{plan.status}</Badge>
      <span className="muted small">
        {steps} step{steps === 1 ? '' : 's'}
      </span>
      {progress ? (
        <span className="muted small">
          {progress.settled}/{progress.total} settled
        </span>
      ) : null}
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
  );
}
