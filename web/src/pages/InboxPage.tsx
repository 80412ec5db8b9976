import { useAgents, usePendingApprovals, usePendingQuestions } from '../api/hooks';
import { useLookingAt } from '../app/presence-heartbeat';
import { useLocation } from '../app/router';
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
  // NTF-1: a notification links to `?card=<id>`; that card and its buttons come first (on a phone, before anything else).
  const focused = useLocation().search.get('card');
  const allPending = (approvals.data?.approvals ?? []).filter((approval) => approval.status === 'pending');
  const allOpen = questions.data?.questions ?? [];
  const focusedApproval = allPending.find((approval) => approval.id === focused);
  const focusedQuestion = allOpen.find((question) => question.id === focused);
  const focusedAlert = budgetAlerts.find((alert) => alert.id === focused);
  const pending = allPending.filter((approval) => approval !== focusedApproval);
  const open = allOpen.filter((question) => question !== focusedQuestion);
  // TEAM-3: the card opened from a notification counts as looking at its conversation (others see who is about to decide).
  useLookingAt(focusedApproval?.conversationId ?? focusedQuestion?.conversationId ?? null);
  const loaded = !approvals.isPending && !questions.isPending && !budget.isPending;
  return (
    <main className="page narrow">
      <h2>Inbox</h2>
      {focused ? (
        <section aria-labelledby="inbox-focused" data-testid="inbox-focused">
          <h3 id="inbox-focused">Waiting for you</h3>
          {focusedApproval ? <ApprovalCard ws={ws} approval={focusedApproval} agents={agents.data?.agents ?? []} /> : null}
          {focusedQuestion ? <QuestionCard ws={ws} question={focusedQuestion} agents={agents.data?.agents ?? []} showLinks /> : null}
          {focusedAlert ? <BudgetAlertCard ws={ws} alert={focusedAlert} agents={agents.data?.agents ?? []} /> : null}
          {loaded && !focusedApproval && !focusedQuestion && !focusedAlert ? <Empty title="This no longer waits">It was decided or answered already, or it expired. Everything still waiting is below.</Empty> : null}
        </section>
      ) : null}
      <section aria-labelledby="inbox-approvals">
        <h3 id="inbox-approvals">Approvals</h3>
        {approvals.isPending ? (
          <Loading label="Loading approvals…" />
        ) : approvals.isError ? (
          <ErrorState error={approvals.error} what="Approvals" retry={() => void approvals.refetch()} />
        ) : pending.length === 0 ? (
          <Empty title={focusedApproval ? 'Nothing else waiting for a decision' : 'Nothing waiting for a decision'}>New approvals appear here as agents ask.</Empty>
        ) : (
          <div className="stack" data-testid="inbox-approvals">
            {pending.map((approval) => (
              <ApprovalCard key={approval.id} ws={ws} approval={approval} agents={agents.data?.agents ?? []} />
            ))}
          </div>
        )}
      </section>
      {/* BUD-1: shown only when a limit or its soft threshold was reached (or it cannot be read). */}
      {budgetAlerts.some((alert) => alert !== focusedAlert) || budget.isError ? (
        <section aria-labelledby="inbox-budget">
          <h3 id="inbox-budget">Budget</h3>
          {budget.isError ? (
            <ErrorState error={budget.error} what="Budget decisions" retry={() => void budget.refetch()} />
          ) : (
            <div className="stack" data-testid="inbox-budget">
              {budgetAlerts.filter((alert) => alert !== focusedAlert).map((alert) => (
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
