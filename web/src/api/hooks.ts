import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { addCreatedToList, writeFresherEntity, writeFresherIntoList, writeFresherSpace } from './fresher-write';
import { keys } from './keys';
import { EMPTY_LIVE_RUN, type LiveRun } from './live-run';
import type {
  Agent,
  AgentPatch,
  Approval,
  Conversation,
  HonestyMatrix,
  Message,
  Plan,
  PostMessageBody,
  PostMessageResponse,
  Presence,
  Question,
  Run,
  RunDetail,
  SettingsView,
  Space,
  Workspace,
} from './types';

const w = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;

export function useWorkspaces() {
  return useQuery({ queryKey: keys.workspaces, queryFn: () => api.get<{ workspaces: Workspace[] }>('/api/workspaces') });
}

export function useAgents(ws: string) {
  return useQuery({ queryKey: keys.agents(ws), queryFn: () => api.get<{ agents: Agent[] }>(`${w(ws)}/agents`) });
}

export function useSettings(ws: string) {
  return useQuery({ queryKey: keys.settings(ws), queryFn: () => api.get<SettingsView>(`${w(ws)}/settings`), retry: false });
}

export function useSpaces(ws: string) {
  return useQuery({ queryKey: keys.spaces(ws), queryFn: () => api.get<{ spaces: Space[] }>(`${w(ws)}/spaces`) });
}

export function useSpace(ws: string, spaceId: string | null | undefined) {
  return useQuery({
    queryKey: keys.space(ws, spaceId ?? ''),
    queryFn: () => api.get<Space>(`${w(ws)}/spaces/${spaceId ?? ''}`),
    enabled: Boolean(spaceId),
  });
}

export function useConversations(ws: string, spaceId: string) {
  return useQuery({
    queryKey: keys.conversations(ws, spaceId),
    queryFn: () => api.get<{ conversations: Conversation[] }>(`${w(ws)}/spaces/${spaceId}/conversations`),
  });
}

export function useConversation(ws: string, conversationId: string) {
  // A space or home page has no conversation: asking for `…/conversations/` would be a 400 on every visit.
  return useQuery({
    queryKey: keys.conversation(ws, conversationId),
    queryFn: () => api.get<Conversation>(`${w(ws)}/conversations/${encodeURIComponent(conversationId)}`),
    enabled: conversationId !== '',
  });
}

export function useMessages(ws: string, conversationId: string) {
  return useQuery({
    queryKey: keys.messages(ws, conversationId),
    queryFn: () => api.get<{ messages: Message[] }>(`${w(ws)}/conversations/${conversationId}/messages`),
    retry: false,
  });
}

export function useRuns(ws: string, conversationId: string) {
  return useQuery({
    queryKey: keys.runs(ws, conversationId),
    queryFn: async () => {
      // The conversation's turns only: subagent and delegate runs share its id but belong under their parent (run tree).
      const result = await api.get<{ runs: Run[] }>(`${w(ws)}/runs?conversationId=${encodeURIComponent(conversationId)}&topLevel=true`);
      // The server lists newest first; the UI reads oldest → newest.
      return { runs: [...result.runs].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)) };
    },
    retry: false,
  });
}

export function useRunDetail(ws: string, runId: string, options: { enabled?: boolean; poll?: boolean } = {}) {
  return useQuery({
    queryKey: keys.run(ws, runId),
    queryFn: () => api.get<RunDetail>(`${w(ws)}/runs/${runId}`),
    enabled: options.enabled ?? true,
    refetchInterval: options.poll ? 3_000 : false,
    retry: false,
  });
}

/** The SSE-fed fold of a run's events; never fetched (events.ts writes it). */
export function useLiveRun(ws: string, runId: string): LiveRun {
  const query = useQuery({ queryKey: keys.liveRun(ws, runId), queryFn: () => EMPTY_LIVE_RUN, enabled: false, staleTime: Infinity, gcTime: 30 * 60_000 });
  return query.data ?? EMPTY_LIVE_RUN;
}

export function usePendingApprovals(ws: string) {
  return useQuery({
    queryKey: keys.approvals(ws),
    queryFn: () => api.get<{ approvals: Approval[] }>(`${w(ws)}/approvals?status=pending`),
    retry: false,
  });
}

export function usePendingQuestions(ws: string) {
  return useQuery({
    queryKey: keys.questions(ws),
    queryFn: () => api.get<{ questions: Question[] }>(`${w(ws)}/questions?status=pending`),
    retry: false,
  });
}

export function usePresence(ws: string) {
  return useQuery({ queryKey: keys.presence(ws), queryFn: () => api.get<{ presence: Presence[] }>(`${w(ws)}/presence`), retry: false });
}

export function usePlans(ws: string, conversationId: string) {
  return useQuery({
    queryKey: keys.plans(ws, conversationId),
    queryFn: async () => {
      const result = await api.get<{ plans: Plan[] }>(`${w(ws)}/plans?conversationId=${encodeURIComponent(conversationId)}`);
      // The server lists newest first; the UI reads oldest → newest, like runs (one order everywhere).
      return { plans: sortOldestFirst(result.plans) };
    },
    retry: false,
  });
}

/** Plans oldest → newest, whatever order they arrived in. */
export function sortOldestFirst(plans: Plan[]): Plan[] {
  return [...plans].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** Every approval of a conversation, decided or not: who approved what and when, shown beside each tool call. */
export function useConversationApprovals(ws: string, conversationId: string) {
  return useQuery({
    queryKey: keys.conversationApprovals(ws, conversationId),
    queryFn: () => api.get<{ approvals: Approval[] }>(`${w(ws)}/approvals?conversationId=${encodeURIComponent(conversationId)}`),
    retry: false,
  });
}

export function usePlan(ws: string, planId: string | null) {
  return useQuery({ queryKey: keys.plan(ws, planId ?? ''), queryFn: () => api.get<Plan>(`${w(ws)}/plans/${planId ?? ''}`), enabled: Boolean(planId), retry: false });
}

export function useHonestyMatrix() {
  return useQuery({ queryKey: keys.honesty, queryFn: () => api.get<HonestyMatrix>('/api/honesty-matrix'), retry: false });
}

// ---- mutations -------------------------------------------------------------------------------

export function useCreateWorkspace() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.post<Workspace>('/api/workspaces', { name }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.workspaces }),
  });
}

export function useCreateAgent(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; title?: string }) => api.post<Agent>(`${w(ws)}/agents`, body),
    onSuccess: (agent) => {
      addCreatedToList(client, keys.agents(ws), 'agents', agent);
    },
  });
}

export function useUpdateAgent(ws: string, agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: AgentPatch) => api.patch<Agent>(`${w(ws)}/agents/${agentId}`, patch),
    onSuccess: (agent) => {
      writeFresherIntoList(client, keys.agents(ws), 'agents', agent, { append: false });
    },
  });
}

export function useDeleteAgent(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (agentId: string) => api.delete<void>(`${w(ws)}/agents/${agentId}`),
    onSuccess: (_result, agentId) => {
      client.setQueryData<{ agents: Agent[] }>(keys.agents(ws), (old) => (old ? { agents: old.agents.filter((entry) => entry.id !== agentId) } : old));
    },
  });
}

export function useUpdateSettings(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: Record<string, unknown>) => api.patch<SettingsView>(`${w(ws)}/settings`, patch),
    onSuccess: (settings) => writeFresherEntity(client, keys.settings(ws), settings),
  });
}

export function useCreateSpace(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; kind?: 'room' | 'pullRequest'; mode?: Space['mode']; autonomy?: Space['autonomy'] }) => api.post<Space>(`${w(ws)}/spaces`, body),
    onSuccess: (space) => {
      addCreatedToList(client, keys.spaces(ws), 'spaces', space);
      writeFresherEntity(client, keys.space(ws, space.id), space);
    },
  });
}

export function useUpdateSpace(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ spaceId, patch }: { spaceId: string; patch: Record<string, unknown> }) => api.patch<Space>(`${w(ws)}/spaces/${spaceId}`, patch),
    onSuccess: (space) => {
      writeFresherSpace(client, ws, space);
    },
  });
}

export function useCreateConversation(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ spaceId, title }: { spaceId: string; title?: string }) =>
      api.post<Conversation>(`${w(ws)}/spaces/${spaceId}/conversations`, title ? { title } : {}),
    onSuccess: (conversation) => {
      addCreatedToList(client, keys.conversations(ws, conversation.spaceId), 'conversations', conversation);
      writeFresherEntity(client, keys.conversation(ws, conversation.id), conversation);
    },
  });
}

export function useBranchConversation(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ conversationId, fromMessageId, title }: { conversationId: string; fromMessageId?: string; title?: string }) =>
      api.post<Conversation>(`${w(ws)}/conversations/${conversationId}/branches`, {
        ...(fromMessageId ? { fromMessageId } : {}),
        ...(title ? { title } : {}),
      }),
    onSuccess: (conversation) => {
      void client.invalidateQueries({ queryKey: keys.conversations(ws, conversation.spaceId) });
      writeFresherEntity(client, keys.conversation(ws, conversation.id), conversation);
    },
  });
}

export function useSendMessage(ws: string, conversationId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PostMessageBody) =>
      api.post<PostMessageResponse>(`${w(ws)}/conversations/${conversationId}/messages`, body),
    onSuccess: (result) => {
      if (result.message) {
        const message = result.message;
        addCreatedToList(client, keys.messages(ws, conversationId), 'messages', message);
      }
      if (result.run) {
        const run = result.run;
        addCreatedToList(client, keys.runs(ws, conversationId), 'runs', run);
      }
      const space = result.space;
      writeFresherSpace(client, ws, space);
    },
  });
}

export function useDecideApproval(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision, reason, remember }: { id: string; decision: 'approve' | 'reject'; reason?: string; remember?: boolean }) =>
      api.post<Approval>(`${w(ws)}/approvals/${id}/decision`, { decision, ...(reason ? { reason } : {}), ...(remember ? { remember } : {}) }),
    onSuccess: (_result, variables) => {
      client.setQueryData<{ approvals: Approval[] }>(keys.approvals(ws), (old) =>
        old ? { approvals: old.approvals.filter((entry) => entry.id !== variables.id) } : old,
      );
      void client.invalidateQueries({ queryKey: keys.approvals(ws) });
    },
  });
}

export function useAnswerQuestion(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, answers }: { id: string; answers: string[] }) => api.post<Question>(`${w(ws)}/questions/${id}/answer`, { answers }),
    onSuccess: (_result, variables) => {
      client.setQueryData<{ questions: Question[] }>(keys.questions(ws), (old) =>
        old ? { questions: old.questions.filter((entry) => entry.id !== variables.id) } : old,
      );
      void client.invalidateQueries({ queryKey: keys.questions(ws) });
    },
  });
}

export function usePlanAction(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ planId, action, reason, nodeKey }: { planId: string; action: 'approve' | 'reject' | 'cancel' | 'cancelNode' | 'resume'; reason?: string; nodeKey?: string }) => {
      const base = `${w(ws)}/plans/${planId}`;
      if (action === 'cancelNode') return api.post<Plan>(`${base}/nodes/${encodeURIComponent(nodeKey ?? '')}/cancel`);
      if (action === 'reject') return api.post<Plan>(`${base}/reject`, reason ? { reason } : {});
      return api.post<Plan>(`${base}/${action}`);
    },
    onSuccess: (result, variables) => {
      if (result && typeof result === 'object' && Array.isArray((result as Plan).nodes)) writeFresherEntity(client, keys.plan(ws, variables.planId), result);
      void client.invalidateQueries({ queryKey: keys.plan(ws, variables.planId) });
      void client.invalidateQueries({ queryKey: keys.allPlans(ws) });
      void client.invalidateQueries({ queryKey: keys.spaces(ws) });
    },
  });
}
