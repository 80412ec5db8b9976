import type { QueryClient } from '@tanstack/react-query';
import { WORKSPACE_EVENT_TYPES } from '@server/schemas/event-types';
import { changesWhatWaits } from './inbox-events';
import { writeFresherEntity } from './fresher-write';
import { keys } from './keys';
import { upsertIntoList } from './list-cache';
import { EMPTY_LIVE_RUN, foldAgentEvent, type LiveRun } from './live-run';
import { openSharedLiveConnection, type LiveRole, type StreamStatus } from './shared-live-connection';
import type { Agent, Approval, Conversation, Message, Presence, Run, Space, WorkspaceEvent } from './types';

/**
 * Every event type the server publishes (src/schemas/event-types.ts, pure data shared with the
 * server). EventSource only delivers named events to listeners of that name, so the stream subscribes
 * to each of them.
 */
export const EVENT_TYPES = WORKSPACE_EVENT_TYPES;

type Listener = (event: WorkspaceEvent) => void;
const listeners = new Set<Listener>();

/** Subscribe to the raw event stream (after the caches were updated). */
export function onWorkspaceEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Applies one workspace event to the query caches. Payloads are typed by the server's event schemas
 * (src/schemas/events.ts); the server's tests check every published event against them.
 */
export function applyWorkspaceEvent(client: QueryClient, ws: string, event: WorkspaceEvent): void {
  if (changesWhatWaits(event.type)) void client.invalidateQueries({ queryKey: keys.inbox(ws) });
  switch (event.type) {
    case 'workspace.created':
    case 'workspace.updated':
    case 'workspace.deleted':
    case 'workspace.seeded':
    case 'workspace.seedingFailed':
      void client.invalidateQueries({ queryKey: keys.workspaces });
      if (event.type === 'workspace.seeded') void client.invalidateQueries({ queryKey: keys.agents(ws) });
      break;
    case 'agent.created':
    case 'agent.updated': {
      const agent = event.data;
      upsertIntoList<'agents', Agent>(client, keys.agents(ws), 'agents', agent);
      break;
    }
    case 'agent.deleted': {
      const { id } = event.data;
      client.setQueryData<{ agents: Agent[] }>(keys.agents(ws), (old) => (old ? { agents: old.agents.filter((agent) => agent.id !== id) } : old));
      break;
    }
    case 'space.created':
    case 'space.updated': {
      const space = event.data;
      upsertIntoList<'spaces', Space>(client, keys.spaces(ws), 'spaces', space);
      writeFresherEntity(client, keys.space(ws, space.id), space);
      // Conversations inherit the space's mode on every read (MODE-1).
      void client.invalidateQueries({ queryKey: keys.allConversations(ws) });
      break;
    }
    case 'space.modeChanged':
      void client.invalidateQueries({ queryKey: keys.space(ws, event.data.spaceId) });
      break;
    case 'conversation.created':
    case 'conversation.updated': {
      const conversation = event.data;
      upsertIntoList<'conversations', Conversation>(client, keys.conversations(ws, conversation.spaceId), 'conversations', conversation);
      writeFresherEntity(client, keys.conversation(ws, conversation.id), conversation);
      break;
    }
    case 'message.created': {
      const message = event.data;
      upsertIntoList<'messages', Message>(client, keys.messages(ws, message.conversationId), 'messages', message);
      break;
    }
    case 'run.created':
    case 'run.updated': {
      const run = event.data;
      // Only turns are listed per conversation; a child run (subagent, delegate) stays in its parent's tree.
      if (run.conversationId && run.parentRunId === null) upsertIntoList<'runs', Run>(client, keys.runs(ws, run.conversationId), 'runs', run);
      // An ended run's log is read again even where nothing shows it now: a read started while it ran
      // (and landing later) must not be what a finished turn shows (FinishedTurn).
      const ended = run.state !== 'running' && run.state !== 'queued';
      void client.invalidateQueries({ queryKey: keys.run(ws, run.id), ...(ended ? { refetchType: 'all' as const } : {}) });
      // The run tree (subagents, delegates) and per-agent cost lists include every run.
      if (run.conversationId) void client.invalidateQueries({ queryKey: keys.runTree(ws, run.conversationId) });
      void client.invalidateQueries({ queryKey: keys.agentRuns(ws, run.agentId) });
      if (event.type === 'run.created') client.setQueryData<LiveRun>(keys.liveRun(ws, run.id), (old) => old ?? { ...EMPTY_LIVE_RUN, fromStart: true });
      if (run.state !== 'running' && run.state !== 'queued' && run.conversationId) {
        // A finished turn may have posted messages and changed plans, goals, the space's mode.
        void client.invalidateQueries({ queryKey: keys.messages(ws, run.conversationId) });
        void client.invalidateQueries({ queryKey: keys.conversation(ws, run.conversationId) });
      }
      void client.invalidateQueries({ queryKey: keys.agents(ws) });
      break;
    }
    case 'run.event': {
      const { runId, event: agentEvent } = event.data;
      client.setQueryData<LiveRun>(keys.liveRun(ws, runId), (old) => foldAgentEvent(old ?? EMPTY_LIVE_RUN, agentEvent));
      break;
    }
    case 'approval.requested':
    case 'approval.decided': {
      const approval = event.data;
      client.setQueryData<{ approvals: Approval[] }>(keys.approvals(ws), (old) => {
        if (!old) return old;
        const rest = old.approvals.filter((entry) => entry.id !== approval.id);
        return { approvals: approval.status === 'pending' ? [...rest, approval] : rest };
      });
      void client.invalidateQueries({ queryKey: keys.approvals(ws) });
      break;
    }
    case 'run.paused':
    case 'run.resumed':
      // keys.run is the prefix of the run's controls too: pause/resume flips what they allow.
      void client.invalidateQueries({ queryKey: keys.run(ws, event.data.runId) });
      break;
    case 'run.steered':
      // The text reaches the turn as a `steering_injected` run event, shown from there.
      break;
    case 'question.asked':
    case 'question.answered':
    case 'question.expired':
    case 'question.cancelled':
      void client.invalidateQueries({ queryKey: keys.questions(ws) });
      break;
    case 'presence.updated': {
      const entry: Presence = event.data;
      client.setQueryData<{ presence: Presence[] }>(keys.presence(ws), (old) => {
        const map = new Map((old?.presence ?? []).map((existing) => [existing.agentId, existing]));
        map.set(entry.agentId, entry);
        return { presence: [...map.values()] };
      });
      break;
    }
    case 'presence.operators':
      // AG-4: people beside agents; the list comes whole.
      writeFresherEntity(client, keys.operatorPresence(ws), event.data);
      break;
    case 'plan.submitted':
    case 'plan.approved':
    case 'plan.rejected':
    case 'plan.updated': {
      const plan = event.data;
      writeFresherEntity(client, keys.plan(ws, plan.id), plan);
      // A read of this plan already in flight answers with the state before this event; landing after
      // it, it would leave Plan Studio at "Running — 0 of 2 steps done" once the plan had finished, with
      // no later event to correct it. Invalidating cancels that read and reads again.
      void client.invalidateQueries({ queryKey: keys.plan(ws, plan.id) });
      void client.invalidateQueries({ queryKey: keys.allPlans(ws) });
      void client.invalidateQueries({ queryKey: keys.conversation(ws, plan.conversationId) });
      break;
    }
    case 'orchestration.proposed':
    case 'orchestration.updated':
      // ORC-1..4: the proposal cards re-read their conversation's orchestrations.
      void client.invalidateQueries({ queryKey: ['ws', ws, 'orchestrations'] });
      break;
    case 'settings.updated':
      writeFresherEntity(client, keys.settings(ws), event.data);
      break;
    case 'policy.ruleCreated':
    case 'policy.ruleDeleted':
      void client.invalidateQueries({ queryKey: keys.policyRules(ws) });
      break;
    case 'pipelineRun.updated':
      // PIPE-1: the pipelines pages refetch the run (and the list's last runs).
      void client.invalidateQueries({ queryKey: [...keys.workspace(ws), 'pipelines'] });
      // An orchestration's ticketWork nodes move their tickets without a ticket event: the board refetches too.
      void client.invalidateQueries({ queryKey: keys.tickets(ws) });
      break;
    case 'review.opened':
    case 'review.updated':
    case 'review.finding':
    case 'review.finalized':
    case 'review.gate':
      void client.invalidateQueries({ queryKey: keys.reviews(ws) });
      break;
    case 'ticket.created':
    case 'ticket.updated':
    case 'ticket.commented':
      void client.invalidateQueries({ queryKey: keys.tickets(ws) });
      break;
    case 'budget.alert':
    case 'budget.limitChanged':
      // BUD-1: the Inbox's budget decisions and the limits' spend refetch.
      void client.invalidateQueries({ queryKey: [...keys.workspace(ws), 'budgets'] });
      break;
    default: {
      // Every event type is handled above: a new type in src/schemas/event-types.ts fails here.
      const unhandled: never = event;
      return unhandled;
    }
  }
}

export type { LiveRole, StreamStatus };

/**
 * Joins the workspace's live connection — one per browser, shared by its tabs (shared-live-connection.ts)
 * — and applies its events to this tab's caches; returns the closer. Events this tab missed make it
 * refetch everything of the workspace it shows.
 */
export function openWorkspaceStream(
  client: QueryClient,
  ws: string,
  onStatus: (status: StreamStatus) => void,
  onRole?: (role: LiveRole, lastEventId: number | null) => void,
): () => void {
  return openSharedLiveConnection(ws, {
    onEvent: (event) => {
      applyWorkspaceEvent(client, ws, event);
      for (const listener of listeners) listener(event);
    },
    onResync: () => void client.invalidateQueries({ queryKey: keys.workspace(ws) }),
    onStatus,
    ...(onRole ? { onRole } : {}),
  });
}
