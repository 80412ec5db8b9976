import type { ReactNode } from 'react';
import { useAgents } from '../api/hooks';
import { useInbox } from '../api/inbox-hooks';
import type { Agent, InboxItem, InboxItemKind } from '../api/types';
import { useLookingAt } from '../app/presence-heartbeat';
import { navigate, paths, useLocation } from '../app/router';
import { PlanRow } from '../conversation/PlanRow';
import { BudgetAlertCard } from '../costs/BudgetAlertCard';
import { OrchestrationCard } from '../orchestrations/OrchestrationCard';
import { ApprovalCard } from '../ui/ApprovalCard';
import { Link } from '../ui/link';
import { OthersLooking } from '../ui/OthersLooking';
import { QuestionCard } from '../ui/QuestionCard';
import { Empty, ErrorState, Loading } from '../ui/states';

/** The Inbox's sections, in the order they are shown; each lists the items of one kind. */
const SECTIONS: Array<{ kind: InboxItemKind; heading: string; testId: string }> = [
  { kind: 'approval', heading: 'Approvals', testId: 'inbox-approvals' },
  { kind: 'plan', heading: 'Plans to approve', testId: 'inbox-plans' },
  { kind: 'orchestration', heading: 'Orchestrations to decide', testId: 'inbox-orchestrations' },
  { kind: 'publication', heading: 'Pull requests to publish', testId: 'inbox-publications' },
  { kind: 'budget', heading: 'Budget', testId: 'inbox-budget' },
  { kind: 'question', heading: 'Questions', testId: 'inbox-questions' },
];

/**
 * Inbox: every decision that waits for a person — tool and pipeline approvals, plans, orchestration
 * proposals and revisions, pull requests to publish, budget decisions and the agents' questions —
 * from one read (`GET …/inbox`, the same the badge counts), each with its own card and buttons;
 * decisions update live.
 */
export function InboxPage({ ws }: { ws: string }) {
  const inbox = useInbox(ws);
  const agents = useAgents(ws).data?.agents ?? [];
  // NTF-1: a notification links to `?card=<id>`; that card and its buttons come first (on a phone, before anything else).
  const focused = useLocation().search.get('card');
  const items = inbox.data?.items ?? [];
  const focusedItem = items.find((item) => item.id === focused) ?? null;
  const rest = items.filter((item) => item !== focusedItem);
  // TEAM-3: the card opened from a notification counts as looking at its conversation (others see who is about to decide).
  useLookingAt(focusedItem?.conversationId ?? null);
  if (inbox.isPending) return <Loading label="Loading the Inbox…" />;
  if (inbox.isError) {
    return (
      <main className="page narrow">
        <h2>Inbox</h2>
        <ErrorState error={inbox.error} what="The Inbox" retry={() => void inbox.refetch()} />
      </main>
    );
  }
  return (
    <main className="page narrow">
      <h2>Inbox</h2>
      <p className="muted small" data-testid="inbox-summary">
        {items.length === 0 ? 'Nothing waits for you.' : `${items.length} waiting for a decision, oldest first.`}
      </p>
      {focused ? (
        <section aria-labelledby="inbox-focused" data-testid="inbox-focused">
          <h3 id="inbox-focused">Waiting for you</h3>
          {focusedItem ? (
            <WaitingCard ws={ws} item={focusedItem} agents={agents} />
          ) : (
            <Empty title="This no longer waits">It was decided or answered already, or it expired. Everything still waiting is below.</Empty>
          )}
        </section>
      ) : null}
      {SECTIONS.map((section) => {
        const ofKind = rest.filter((item) => item.kind === section.kind);
        // Approvals always show (their empty state says nothing waits); other kinds only when something does.
        if (ofKind.length === 0 && section.kind !== 'approval') return null;
        return (
          <section key={section.kind} aria-labelledby={`${section.testId}-heading`}>
            <h3 id={`${section.testId}-heading`}>{section.heading}</h3>
            {ofKind.length === 0 ? (
              <Empty title={rest.length > 0 ? 'No approvals waiting' : focusedItem ? 'Nothing else waiting for a decision' : 'Nothing waiting for a decision'}>
                New approvals, plans and proposals appear here as agents ask.
              </Empty>
            ) : (
              <div className="stack" data-testid={section.testId}>
                {ofKind.map((item) => (
                  <WaitingCard key={item.id} ws={ws} item={item} agents={agents} />
                ))}
              </div>
            )}
          </section>
        );
      })}
    </main>
  );
}

/** One waiting item with the card its kind already has everywhere else (the same buttons as in the conversation). */
function WaitingCard({ ws, item, agents }: { ws: string; item: InboxItem; agents: Agent[] }): ReactNode {
  switch (item.kind) {
    case 'approval':
    case 'publication':
      return <ApprovalCard ws={ws} approval={item.approval} agents={agents} />;
    case 'question':
      return <QuestionCard ws={ws} question={item.question} agents={agents} showLinks />;
    case 'budget':
      return <BudgetAlertCard ws={ws} alert={item.alert} agents={agents} />;
    case 'orchestration':
      return (
        <div className="stack" data-testid="inbox-orchestration" data-orchestration-id={item.id}>
          <OrchestrationCard ws={ws} orchestration={item.orchestration} agents={agents} />
          <OthersLooking ws={ws} conversationId={item.conversationId} />
          {item.conversationId ? <Link to={paths.conversation(ws, item.conversationId)}>Open conversation</Link> : null}
        </div>
      );
    case 'plan':
      // Open goes to Plan Studio in its conversation, where it can also be rejected with a reason.
      return (
        <div className="stack" data-testid="inbox-plan" data-plan-id={item.id}>
          <PlanRow ws={ws} plan={item.plan} agentById={new Map(agents.map((agent) => [agent.id, agent]))} onOpen={() => navigate(paths.conversation(ws, item.plan.conversationId, item.plan.id))} />
          <OthersLooking ws={ws} conversationId={item.conversationId} />
        </div>
      );
  }
}
