import { useAgents, usePendingApprovals, usePendingQuestions } from '../api/hooks';
import { BudgetAlertCard } from '../costs/BudgetAlertCard';
import { useOpenBudgetAlerts } from '../costs/budget-hooks';
import { ApprovalCard } from '../ui/ApprovalCard';
import { QuestionCard } from '../ui/QuestionCard';
import { Empty, ErrorState, Loading } from '../ui/states';

/** Inbox: every pending approval (tool, plan_exit, plan, …), open question and budget decision; decisions update live. */
export function InboxPage({ ws }: { ws: string }) {
  const approvals = usePendingApprovals(ws);
  const questions = usePendingQuestions(ws);
  const agents = useAgents(ws);
  const budget = useOpenBudgetAlerts(ws);
  const budgetAlerts = budget.data?.alerts ?? [];
  const pending = (approvals.data?.approvals ?? []).filter((approval) => approval.status === 'pending');
  const open = questions.data?.questions ?? [];
  return (
    <main className="page narrow">
      <h2>Inbox</h2>
      <section aria-labelledby="inbox-approvals">
        <h3 id="inbox-approvals">Approvals</h3>
        {approvals.isPending ? (
          <Loading label="Loading approvals…" />
        ) : approvals.isError ? (
          <ErrorState error={approvals.error} what="Approvals" retry={() => void approvals.refetch()} />
        ) : pending.length === 0 ? (
          <Empty title="Nothing waiting for a decision">New approvals appear here as agents ask.</Empty>
        ) : (
          <div className="stack" data-testid="inbox-approvals">
            {pending.map((approval) => (
              <ApprovalCard key={approval.id} ws={ws} approval={approval} agents={agents.data?.agents ?? []} />
            ))}
          </div>
        )}
      </section>
      {/* BUD-1: shown only when a limit or its soft threshold was reached (or it cannot be read). */}
      {budgetAlerts.length > 0 || budget.isError ? (
        <section aria-labelledby="inbox-budget">
          <h3 id="inbox-budget">Budget</h3>
          {budget.isError ? (
            <ErrorState error={budget.error} what="Budget decisions" retry={() => void budget.refetch()} />
          ) : (
            <div className="stack" data-testid="inbox-budget">
              {budgetAlerts.map((alert) => (
                <BudgetAlertCard key={alert.id} ws={ws} alert={alert} agents={agents.data?.agents ?? []} />
              ))}
            </div>
          )}
        </section>
      ) : null}
      <section aria-labelledby="inbox-questions">
        <h3 id="inbox-questions">Questions</h3>
        {questions.isPending ? (
          <Loading label="Loading questions…" />
        ) : questions.isError ? (
          <ErrorState error={questions.error} what="Questions" retry={() => void questions.refetch()} />
        ) : open.length === 0 ? (
          <Empty title="No open questions" />
        ) : (
          <div className="stack" data-testid="inbox-questions">
            {open.map((question) => (
              <QuestionCard key={question.id} ws={ws} question={question} agents={agents.data?.agents ?? []} showLinks />
            ))}
          </div>
        )}
      </section>
    </main>
  );
}
