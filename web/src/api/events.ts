import type { QueryClient } from '@tanstack/react-query';
import { keys } from './keys';
import { EMPTY_LIVE_RUN, foldAgentEvent, type LiveRun } from './live-run';
import type { Agent, AgentEvent, Approval, Conversation, Message, Plan, Presence, Run, Space, WorkspaceEvent } from './types';

/** Every event type docs/api.md lists. EventSource only delivers named events to named listeners. */
export const EVENT_TYPES = [
  'workspace.created',
  'workspace.updated',
  'workspace.deleted',
  'workspace.seeded',
  'workspace.seedingFailed',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'space.created',
  'space.updated',
  'space.modeChanged',
  'conversation.created',
  'conversation.updated',
  'message.created',
  'run.created',
  'run.updated',
  'run.event',
  'run.paused',
  'run.resumed',
  'run.steered',
  'approval.requested',
  'approval.decided',
  'question.asked',
  'question.answered',
  'question.expired',
  'question.cancelled',
  'presence.updated',
  'plan.submitted',
  'plan.approved',
  'plan.rejected',
  'plan.updated',
  'settings.updated',
] as const;

type Listener = (event: WorkspaceEvent) => void;
const listeners = new Set<Listener>();

/** Subscribe to the raw event stream (after the caches were updated). */
export function onWorkspaceEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function upsertById<T extends { id: string }>(list: T[] | undefined, item: T): T[] | undefined {
  if (!list) return list;
  const index = list.findIndex((entry) => entry.id === item.id);
  if (index < 0) return [...list, item];
  const next = list.slice();
  next[index] = item;
  return next;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Applies one workspace event to the query caches. Anything not understood is refetched instead. */
export function applyWorkspaceEvent(client: QueryClient, ws: string, event: WorkspaceEvent): void {
  const data = event.data;
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
    case 'agent.updated':
      if (isObject(data) && typeof data.id === 'string') {
        const agent = data as unknown as Agent;
        client.setQueryData<{ agents: Agent[] }>(keys.agents(ws), (old) => (old ? { agents: upsertById(old.agents, agent) ?? [] } : old));
      } else void client.invalidateQueries({ queryKey: keys.agents(ws) });
      break;
    case 'agent.deleted':
      if (isObject(data) && typeof data.id === 'string') {
        const id = data.id;
        client.setQueryData<{ agents: Agent[] }>(keys.agents(ws), (old) => (old ? { agents: old.agents.filter((agent) => agent.id !== id) } : old));
      }
      break;
    case 'space.created':
    case 'space.updated':
      if (isObject(data) && typeof data.id === 'string') {
        const space = data as unknown as Space;
        client.setQueryData<{ spaces: Space[] }>(keys.spaces(ws), (old) => (old ? { spaces: upsertById(old.spaces, space) ?? [] } : old));
        client.setQueryData(keys.space(ws, space.id), space);
        // Conversations inherit the space's mode on every read (MODE-1).
        void client.invalidateQueries({ queryKey: keys.allConversations(ws) });
      } else void client.invalidateQueries({ queryKey: keys.spaces(ws) });
      break;
    case 'space.modeChanged':
      if (isObject(data) && typeof data.spaceId === 'string') void client.invalidateQueries({ queryKey: keys.space(ws, data.spaceId) });
      break;
    case 'conversation.created':
    case 'conversation.updated':
      if (isObject(data) && typeof data.id === 'string') {
        const conversation = data as unknown as Conversation;
        client.setQueryData<{ conversations: Conversation[] }>(keys.conversations(ws, conversation.spaceId), (old) =>
          old ? { conversations: upsertById(old.conversations, conversation) ?? [] } : old,
        );
        client.setQueryData(keys.conversation(ws, conversation.id), conversation);
      }
      break;
    case 'message.created': {
      const message = (isObject(data) && isObject(data.message) ? data.message : data) as Message | null;
      if (message && typeof message.id === 'string' && typeof message.conversationId === 'string') {
        client.setQueryData<{ messages: Message[] }>(keys.messages(ws, message.conversationId), (old) =>
          old ? { messages: upsertById(old.messages, message) ?? [] } : old,
        );
      }
      break;
    }
    case 'run.created':
    case 'run.updated':
      if (isObject(data) && typeof data.id === 'string') {
        const run = data as unknown as Run;
        if (run.conversationId) client.setQueryData<{ runs: Run[] }>(keys.runs(ws, run.conversationId), (old) => (old ? { runs: upsertById(old.runs, run) ?? [] } : old));
        void client.invalidateQueries({ queryKey: keys.run(ws, run.id) });
        if (event.type === 'run.created') client.setQueryData<LiveRun>(keys.liveRun(ws, run.id), (old) => old ?? { ...EMPTY_LIVE_RUN, fromStart: true });
        if (run.state !== 'running' && run.state !== 'queued' && run.conversationId) {
          // A finished turn may have posted messages and changed plans, goals, the space's mode.
          void client.invalidateQueries({ queryKey: keys.messages(ws, run.conversationId) });
          void client.invalidateQueries({ queryKey: keys.conversation(ws, run.conversationId) });
        }
      }
      void client.invalidateQueries({ queryKey: keys.agents(ws) });
      break;
    case 'run.event':
      if (isObject(data) && typeof data.runId === 'string' && isObject(data.event)) {
        const agentEvent = data.event as AgentEvent;
        client.setQueryData<LiveRun>(keys.liveRun(ws, data.runId), (old) => foldAgentEvent(old ?? EMPTY_LIVE_RUN, agentEvent));
      }
      break;
    case 'approval.requested':
    case 'approval.decided':
      if (isObject(data) && typeof data.id === 'string') {
        const approval = data as unknown as Approval;
        client.setQueryData<{ approvals: Approval[] }>(keys.approvals(ws), (old) => {
          if (!old) return old;
          const rest = old.approvals.filter((entry) => entry.id !== approval.id);
          return { approvals: approval.status === 'pending' ? [...rest, approval] : rest };
        });
      }
      void client.invalidateQueries({ queryKey: keys.approvals(ws) });
      break;
    case 'run.paused':
    case 'run.resumed':
      if (isObject(data) && typeof data.runId === 'string') void client.invalidateQueries({ queryKey: keys.run(ws, data.runId) });
      break;
    case 'question.asked':
    case 'question.answered':
    case 'question.expired':
    case 'question.cancelled':
      void client.invalidateQueries({ queryKey: keys.questions(ws) });
      break;
    case 'presence.updated': {
      const entries: Presence[] = Array.isArray(data)
        ? (data as Presence[])
        : isObject(data) && Array.isArray(data.presence)
          ? (data.presence as Presence[])
          : isObject(data) && typeof data.agentId === 'string'
            ? [data as unknown as Presence]
            : [];
      client.setQueryData<{ presence: Presence[] }>(keys.presence(ws), (old) => {
        const map = new Map((old?.presence ?? []).map((entry) => [entry.agentId, entry]));
        for (const entry of entries) map.set(entry.agentId, entry);
        return { presence: [...map.values()] };
      });
      break;
    }
    case 'plan.submitted':
    case 'plan.approved':
    case 'plan.rejected':
    case 'plan.updated': {
      const plan = (isObject(data) && isObject(data.plan) ? data.plan : data) as Plan | null;
      if (plan && typeof plan.id === 'string' && Array.isArray(plan.nodes)) client.setQueryData(keys.plan(ws, plan.id), plan);
      else if (plan && typeof plan.id === 'string') void client.invalidateQueries({ queryKey: keys.plan(ws, plan.id) });
      void client.invalidateQueries({ queryKey: keys.allPlans(ws) });
      if (plan?.conversationId) void client.invalidateQueries({ queryKey: keys.conversation(ws, plan.conversationId) });
      break;
    }
    case 'settings.updated':
      if (isObject(data)) client.setQueryData(keys.settings(ws), data);
      break;
    default:
      break;
  }
}

export type StreamStatus = 'connecting' | 'open' | 'error';

/** Opens the one EventSource of a workspace; returns a closer. */
export function openWorkspaceStream(client: QueryClient, ws: string, token: string, onStatus: (status: StreamStatus) => void): () => void {
  const source = new EventSource(`/api/workspaces/${encodeURIComponent(ws)}/events?token=${encodeURIComponent(token)}`);
  onStatus('connecting');
  let everOpened = false;
  source.onopen = () => {
    onStatus('open');
    // Anything missed while disconnected: refetch what is on screen.
    if (everOpened) void client.invalidateQueries({ queryKey: keys.workspace(ws) });
    everOpened = true;
  };
  source.onerror = () => onStatus('error');
  const handle = (message: MessageEvent<string>) => {
    let event: WorkspaceEvent;
    try {
      event = JSON.parse(message.data) as WorkspaceEvent;
    } catch {
      return;
    }
    applyWorkspaceEvent(client, ws, event);
    for (const listener of listeners) listener(event);
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, handle as EventListener);
  return () => source.close();
}
