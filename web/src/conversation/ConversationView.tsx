import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { isMissingRoute } from '../api/client';
import { onWorkspaceEvent } from '../api/events';
import { useAgents, useMessages, usePendingApprovals, usePendingQuestions, usePlans, useRuns, useSpace } from '../api/hooks';
import type { Agent, Conversation, Message, Plan, Run } from '../api/types';
import { navigate, paths } from '../app/router';
import { ApprovalCard } from '../ui/ApprovalCard';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { QuestionCard } from '../ui/QuestionCard';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Empty, ErrorState, Loading } from '../ui/states';
import { BranchForm } from './BranchForm';
import { Composer } from './Composer';
import { ConversationTitle } from './ConversationTitle';
import { ShareControl } from './ShareControl';
import { MessageItem } from './MessageItem';
import { RewindBanner } from './RewindControls';
import { PlanRow } from './PlanRow';
import { foldPlanSteps } from './plan-steps';
import { useConversationOrchestrations } from '../orchestrations/orchestration-hooks';
import { OrchestrationCard } from '../orchestrations/OrchestrationCard';
import type { Orchestration } from '../orchestrations/orchestration-hooks';
import { isActive, LiveTurn, RunOutcome } from './RunBlocks';
import { PlanReadyBoard } from './PlanReadyBoard';
import { SidePanel } from './SidePanel';
import { isModeChangeNote } from './ModeChangeNote';
import { SpaceModeBar } from './SpaceModeBar';
import { showToast, ToastRegion } from '../ui/Toasts';
import { usePrefetchChanges } from './changes/changes-api';

/** Plan Studio carries the graph library (@xyflow/react): loaded when first opened. */
const PlanStudio = lazy(() => import('./PlanStudio').then((module) => ({ default: module.PlanStudio })));
// CHG-1: the Changes view and its highlighter load when it is first opened.
const ChangesView = lazy(() => import('./changes/ChangesView'));

/** PLAN-3: a plan that arrives within this window while its conversation is on screen opens Plan Studio. */
const AUTO_OPEN_WINDOW_MS = 30_000;

type TimelineEntry =
  | { kind: 'message'; at: string; message: Message }
  | { kind: 'plan'; at: string; plan: Plan }
  | { kind: 'orchestration'; at: string; orchestration: Orchestration }
  | { kind: 'outcome'; at: string; run: Run };

/** At one instant, a turn's message comes before its outcome line, and both before a plan or team proposal it submitted. */
const ENTRY_ORDER: Record<TimelineEntry['kind'], number> = { message: 0, outcome: 1, plan: 2, orchestration: 3 };

export function ConversationView({ ws, conversation, planId }: { ws: string; conversation: Conversation; planId: string | null }) {
  const space = useSpace(ws, conversation.spaceId);
  const messages = useMessages(ws, conversation.id);
  const runs = useRuns(ws, conversation.id);
  const plans = usePlans(ws, conversation.id);
  const orchestrations = useConversationOrchestrations(ws, conversation.id);
  const agents = useAgents(ws);
  const approvals = usePendingApprovals(ws);
  const questions = usePendingQuestions(ws);
  // TEAM-2: sending is a member's; a viewer reads the conversation and is told why there is no composer.
  const { role, canDecide } = useWorkspaceRole(ws);

  const openPlan = (id: string | null) => navigate(paths.conversation(ws, conversation.id, id ?? undefined));

  // PLAN-3: open Plan Studio by itself when a plan for this conversation arrives while it is on screen.
  useEffect(
    () =>
      onWorkspaceEvent((event) => {
        if (event.type !== 'plan.submitted') return;
        const plan = event.data;
        if (plan.conversationId !== conversation.id) return;
        const arrived = Date.parse(event.at);
        if (Number.isFinite(arrived) && Date.now() - arrived > AUTO_OPEN_WINDOW_MS) return;
        if (document.visibilityState === 'hidden') return;
        navigate(paths.conversation(ws, conversation.id, plan.id), { replace: true });
      }),
    [ws, conversation.id],
  );

  // A change of mode or dial is said in the timeline (the server's line) and, as it happens, in a toast.
  useEffect(
    () =>
      onWorkspaceEvent((event) => {
        if (event.type === 'message.created' && event.data.conversationId === conversation.id && isModeChangeNote(event.data)) showToast(event.data.content);
      }),
    [conversation.id],
  );

  // Memoized so an absent list is one stable empty array, not a new one each render for the memos below.
  const agentList: Agent[] = useMemo(() => agents.data?.agents ?? [], [agents.data]);
  const agentById = useMemo(() => new Map(agentList.map((agent) => [agent.id, agent])), [agentList]);
  // Turns only: child runs (subagents, delegates) carry the conversation's id but are not turns of their own.
  const runList = useMemo(() => (runs.data?.runs ?? []).filter((run) => run.parentRunId === null), [runs.data]);
  const planList = useMemo(() => plans.data?.plans ?? [], [plans.data]);
  // One plan, one drawing: an approved plan's orchestration record is its plan row, not a second card.
  const orchestrationList = useMemo(() => (orchestrations.data?.orchestrations ?? []).filter((orchestration) => orchestration.planId === null), [orchestrations.data]);

  // PLAN-8: a plan's step prompts, replies and runs are folded under its row, not spread over the conversation.
  const steps = useMemo(() => foldPlanSteps(planList, messages.data?.messages ?? [], runList), [planList, messages.data, runList]);

  const { entries: timeline, trailingPlans, trailingOrchestrations } = useMemo(() => {
    const activeRunIds = new Set(runList.filter(isActive).map((run) => run.id));
    const entries: TimelineEntry[] = [];
    const messageList = messages.data?.messages ?? [];
    for (const message of messageList) {
      if (steps.foldedMessageIds.has(message.id)) continue;
      // While its turn runs, an agent's reply is shown streaming in the live block instead.
      if (message.role === 'assistant' && message.runId && activeRunIds.has(message.runId)) continue;
      entries.push({ kind: 'message', at: message.createdAt, message });
    }
    // PLAN-3, ORC-1: a plan or a team proposal is drawn after the turn that submitted it (its reply is
    // written when the turn ends, after the submission): the latest of the three times is its place.
    // One still submitted by a running turn has no place yet (null): it comes after that live turn.
    const placeAfterSubmitter = (runId: string | null, createdAt: string): string | null => {
      const submitter = runId ? runList.find((run) => run.id === runId) : undefined;
      if (submitter && isActive(submitter)) return null;
      const reply = runId ? messageList.find((message) => message.role === 'assistant' && message.runId === runId) : undefined;
      return [createdAt, submitter?.endedAt ?? '', reply?.createdAt ?? ''].reduce((latest, time) => (time > latest ? time : latest));
    };
    const trailing: Plan[] = [];
    for (const plan of planList) {
      const at = placeAfterSubmitter(plan.runId, plan.createdAt ?? plan.updatedAt ?? '');
      if (at === null) trailing.push(plan);
      else entries.push({ kind: 'plan', at, plan });
    }
    const trailingProposals: Orchestration[] = [];
    for (const orchestration of orchestrationList) {
      const at = placeAfterSubmitter(orchestration.runId, orchestration.createdAt);
      if (at === null) trailingProposals.push(orchestration);
      else entries.push({ kind: 'orchestration', at, orchestration });
    }
    for (const run of runList) {
      if (steps.stepRunIds.has(run.id)) continue;
      if (!isActive(run) && (run.state !== 'completed' || run.deliverableFailed)) entries.push({ kind: 'outcome', at: run.endedAt ?? run.createdAt, run });
    }
    return { entries: entries.sort((a, b) => a.at.localeCompare(b.at) || ENTRY_ORDER[a.kind] - ENTRY_ORDER[b.kind]), trailingPlans: trailing, trailingOrchestrations: trailingProposals };
  }, [messages.data, planList, orchestrationList, runList, steps]);
  const repliedRunIds = useMemo(() => new Set((messages.data?.messages ?? []).flatMap((message) => (message.role === 'assistant' && message.runId ? [message.runId] : []))), [messages.data]);

  const activeRuns = runList.filter((run) => isActive(run) && !steps.stepRunIds.has(run.id));
  // RLY-5: the board belongs under the newest finished turn only (a later turn supersedes it).
  const lastFinishedRun = [...runList].filter((run) => run.state === 'completed' && !run.parentRunId).sort((a, b) => (a.endedAt ?? a.createdAt).localeCompare(b.endedAt ?? b.createdAt)).pop() ?? null;
  const pendingApprovals = (approvals.data?.approvals ?? []).filter((approval) => approval.status === 'pending' && approval.conversationId === conversation.id);
  const pendingQuestions = (questions.data?.questions ?? []).filter((question) => question.conversationId === conversation.id && question.status === 'pending');
  // HAR-5: a plain message sent while a turn is going goes to that turn — one waiting for approval
  // first, else the newest running one (the server picks the same way); the composer says so first.
  const waitingTurn = activeRuns.find((run) => pendingApprovals.some((approval) => approval.runId === run.id)) ?? null;
  const newestRunning = [...activeRuns].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
  const goingTurn = waitingTurn ? { id: waitingTurn.id, waitsForApproval: true } : newestRunning ? { id: newestRunning.id, waitsForApproval: false } : null;

  const scroller = useRef<HTMLDivElement>(null);
  const lastSize = useRef(0);
  const size = timeline.length + activeRuns.length + pendingApprovals.length + pendingQuestions.length;
  useEffect(() => {
    const element = scroller.current;
    if (element && size !== lastSize.current) element.scrollTop = element.scrollHeight;
    lastSize.current = size;
  });

  // Branching asks for a name first (BranchForm); `undefined` = closed, null = from the end.
  // Narrow screens: the side panel is a sheet opened from the header.
  const [panelOpen, setPanelOpen] = useState(false);
  const [branchFrom, setBranchFrom] = useState<string | null | undefined>(undefined);
  const [changesOpen, setChangesOpen] = useState(false);
  // On a phone the header is one line: the title and a "⋯" button; the actions open as a menu under it.
  const [actionsOpen, setActionsOpen] = useState(false);
  const prefetchChanges = usePrefetchChanges(ws, conversation.id);

  const showStudio = planId !== null;

  return (
    <div className="conversation-layout">
      <main className="conversation-main" aria-label="Conversation">
        <header className="conversation-header">
          <div className="conversation-title">
            <ConversationTitle ws={ws} conversation={conversation} />
            <span className="muted small conversation-where">
              {space.data ? <>in {space.data.name}</> : null}
              {conversation.parentConversationId ? (
                <>
                  {' '}
                  · branch of <a href={paths.conversation(ws, conversation.parentConversationId)} onClick={(event) => { event.preventDefault(); navigate(paths.conversation(ws, conversation.parentConversationId!)); }}>its parent</a>
                </>
              ) : null}
            </span>
          </div>
          {showStudio || planList.length > 0 ? (
            <div className="tabs" role="tablist" aria-label="Views">
              <button type="button" role="tab" aria-selected={!showStudio} className={`tab${!showStudio ? ' active' : ''}`} onClick={() => openPlan(null)}>
                Conversation
              </button>
              <button
                type="button"
                role="tab"
                aria-selected={showStudio}
                className={`tab${showStudio ? ' active' : ''}`}
                onClick={() => openPlan(planId ?? planList[planList.length - 1]?.id ?? null)}
              >
                Plan Studio
              </button>
            </div>
          ) : null}
          <button
            type="button"
            className="btn btn-ghost btn-small actions-toggle"
            aria-label="Conversation actions"
            aria-expanded={actionsOpen}
            aria-controls="conversation-actions"
            onClick={() => setActionsOpen((open) => !open)}
          >
            ⋯
          </button>
          <div
            id="conversation-actions"
            className={`conversation-actions${actionsOpen ? ' open' : ''}`}
            onClick={(event) => {
              // Choosing an action closes the phone menu; the share button opens its own panel in place.
              const target = event.target as HTMLElement;
              if (target.closest('button') && !target.closest('.share-control')) setActionsOpen(false);
            }}
          >
            {showStudio ? null : (
              <button type="button" className="btn btn-small panel-toggle" aria-expanded={panelOpen} aria-controls="side-panel" onClick={() => setPanelOpen((open) => !open)}>
                Tasks
              </button>
            )}
            {showStudio ? null : (
              <button
                type="button"
                className="btn btn-small"
                aria-pressed={changesOpen}
                onClick={() => {
                  if (!changesOpen) prefetchChanges();
                  setChangesOpen(!changesOpen);
                }}
              >
                Changes
              </button>
            )}
            {/* TEAM-2: branching and making share links are a member's (the routes' declared role). */}
            {canDecide ? (
              <>
                <button type="button" className="btn btn-small" onClick={() => setBranchFrom(null)} aria-expanded={branchFrom !== undefined}>
                  Branch…
                </button>
                <ShareControl ws={ws} conversationId={conversation.id} />
              </>
            ) : null}
          </div>
        </header>
        {space.data ? <SpaceModeBar ws={ws} space={space.data} /> : null}
        {branchFrom !== undefined ? <BranchForm key={branchFrom ?? 'end'} ws={ws} conversation={conversation} fromMessageId={branchFrom} onClose={() => setBranchFrom(undefined)} /> : null}
        {showStudio ? (
          <ErrorBoundary key={planId} what="Plan Studio">
            <Suspense fallback={<Loading label="Opening Plan Studio…" />}>
              <PlanStudio ws={ws} planId={planId} agents={agentList} onClose={() => openPlan(null)} />
            </Suspense>
          </ErrorBoundary>
        ) : changesOpen ? (
          <ErrorBoundary what="the changes">
            <Suspense fallback={<Loading label="Opening the changes…" />}>
              <ChangesView ws={ws} conversationId={conversation.id} />
            </Suspense>
          </ErrorBoundary>
        ) : (
          <>
            <div className="timeline" ref={scroller} data-testid="timeline">
              {messages.isPending ? (
                <Loading label="Loading messages…" />
              ) : messages.isError ? (
                <ErrorState error={messages.error} what={isMissingRoute(messages.error) ? 'Messages' : 'messages'} retry={() => void messages.refetch()} />
              ) : timeline.length === 0 && activeRuns.length === 0 ? (
                <Empty title="No messages yet">{canDecide ? "Write below. The space's default agent (or the CEO) answers; start with @name to address another." : 'Nothing here yet.'}</Empty>
              ) : null}
              {timeline.map((entry) =>
                entry.kind === 'message' ? (
                  <MessageItem
                    key={entry.message.id}
                    ws={ws}
                    message={entry.message}
                    agent={entry.message.authorId ? agentById.get(entry.message.authorId) : undefined}
                    run={entry.message.runId ? runList.find((run) => run.id === entry.message.runId) : undefined}
                    onBranch={() => setBranchFrom(entry.message.id)}
                  />
                ) : entry.kind === 'orchestration' ? (
                  <OrchestrationCard key={`${entry.orchestration.id}-${entry.orchestration.latestRevision}`} ws={ws} orchestration={entry.orchestration} agents={agentList} />
                ) : entry.kind === 'plan' ? (
                  <PlanRow
                    key={entry.plan.id}
                    ws={ws}
                    plan={entry.plan}
                    steps={steps.byPlan.get(entry.plan.id) ?? []}
                    agentById={agentById}
                    onOpen={() => openPlan(entry.plan.id)}
                  />
                ) : (
                  <RunOutcome key={`outcome-${entry.run.id}`} ws={ws} run={entry.run} agent={agentById.get(entry.run.agentId)} hasReply={repliedRunIds.has(entry.run.id)} />
                ),
              )}
              {canDecide && lastFinishedRun && activeRuns.length === 0 && space.data ? <PlanReadyBoard key={`board-${lastFinishedRun.id}`} ws={ws} run={lastFinishedRun} space={space.data} conversationId={conversation.id} /> : null}
              {activeRuns.map((run) => (
                <LiveTurn key={run.id} ws={ws} run={run} agent={agentById.get(run.agentId)} />
              ))}
              {trailingPlans.map((plan) => (
                <PlanRow key={plan.id} ws={ws} plan={plan} steps={steps.byPlan.get(plan.id) ?? []} agentById={agentById} onOpen={() => openPlan(plan.id)} />
              ))}
              {trailingOrchestrations.map((orchestration) => (
                <OrchestrationCard key={`${orchestration.id}-${orchestration.latestRevision}`} ws={ws} orchestration={orchestration} agents={agentList} />
              ))}
              {pendingQuestions.map((question) => (
                <QuestionCard key={question.id} ws={ws} question={question} agents={agentList} />
              ))}
              {pendingApprovals.map((approval) => (
                <ApprovalCard key={approval.id} ws={ws} approval={approval} agents={agentList} showLinks={false} />
              ))}
            </div>
            <RewindBanner ws={ws} conversationId={conversation.id} />
            {!canDecide ? (
              <ReadOnlyNote role={role} needs="member" what="sending" subject="this conversation" />
            ) : space.data ? (
              <Composer ws={ws} space={space.data} conversationId={conversation.id} turnRunning={activeRuns.length > 0} goingTurn={goingTurn} />
            ) : space.isError ? (
              <ErrorState error={space.error} what="the space" />
            ) : (
              <Loading />
            )}
          </>
        )}
      </main>
      <ToastRegion />
      {/* Plan Studio shows the same progress itself and needs the width for its graph. */}
      {showStudio ? null : (
        <ErrorBoundary what="the side panel">
          <SidePanel ws={ws} conversation={conversation} plans={planList} agents={agentList} onOpenPlan={(id) => openPlan(id)} open={panelOpen} onClose={() => setPanelOpen(false)} />
        </ErrorBoundary>
      )}
    </div>
  );
}
