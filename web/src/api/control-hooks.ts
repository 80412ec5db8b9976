import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { keys } from './keys';
import { writeFresherEntity } from './fresher-write';
import type { Conversation, CreateRuleBody, OperatorHere, PolicyRule, ProbeResult, Run, RunControls, RunTreeNode } from './types';

/**
 * Queries and mutations of the policy page, run control, cost and presence (POL-3..5,
 * HAR-5, HAR-6, AG-4). Kept apart from hooks.ts so each screen's API is in one place.
 */
const w = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}`;

export function usePolicyRules(ws: string) {
  return useQuery({ queryKey: keys.policyRules(ws), queryFn: () => api.get<{ rules: PolicyRule[] }>(`${w(ws)}/policy/rules`), retry: false });
}

export function useCreateRule(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateRuleBody) => api.post<PolicyRule>(`${w(ws)}/policy/rules`, body),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.policyRules(ws) }),
  });
}

export function useDeleteRule(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ruleId: string) => api.delete<void>(`${w(ws)}/policy/rules/${encodeURIComponent(ruleId)}`),
    onSuccess: (_result, ruleId) => {
      client.setQueryData<{ rules: PolicyRule[] }>(keys.policyRules(ws), (old) => (old ? { rules: old.rules.filter((rule) => rule.id !== ruleId) } : old));
    },
  });
}

export interface ProbeInput {
  command: string;
  spaceId?: string;
  agentId?: string;
}

/** An http(s) URL typed in the probe is asked as a web_fetch of it (TOOL-1: domain rules); anything else is a command. */
export function isProbeUrl(text: string): boolean {
  return /^https?:\/\//i.test(text.trim());
}

export function useProbe(ws: string) {
  return useMutation({
    mutationFn: (input: ProbeInput) =>
      api.post<ProbeResult>(`${w(ws)}/policy/probe`, {
        ...(isProbeUrl(input.command) ? { url: input.command.trim() } : { command: input.command }),
        ...(input.spaceId ? { spaceId: input.spaceId } : {}),
        ...(input.agentId ? { agentId: input.agentId } : {}),
      }),
  });
}

/** What a run allows now (HAR-5); refreshed by its pause/resume events and while it runs. */
export function useRunControls(ws: string, runId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.runControls(ws, runId),
    queryFn: () => api.get<RunControls>(`${w(ws)}/runs/${encodeURIComponent(runId)}/controls`),
    enabled,
    retry: false,
  });
}

export type RunControlAction = 'pause' | 'resume' | 'cancel' | 'steer';

export function useRunControl(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, action, text }: { runId: string; action: RunControlAction; text?: string }) =>
      api.post<{ ok: true }>(`${w(ws)}/runs/${encodeURIComponent(runId)}/${action}`, action === 'steer' ? { text: text ?? '' } : {}),
    onSettled: (_result, _error, variables) => client.invalidateQueries({ queryKey: keys.runControls(ws, variables.runId) }),
  });
}

/** The conversation's turns with their subagent and delegate runs nested (HAR-5, HAR-6). */
export function useRunTree(ws: string, conversationId: string) {
  return useQuery({
    queryKey: keys.runTree(ws, conversationId),
    queryFn: () => api.get<{ runs: RunTreeNode[] }>(`${w(ws)}/conversations/${encodeURIComponent(conversationId)}/run-tree`),
    enabled: conversationId !== '',
    retry: false,
  });
}

/** An agent's recent runs, for its cost and time (HAR-6). */
export function useAgentRuns(ws: string, agentId: string) {
  return useQuery({
    queryKey: keys.agentRuns(ws, agentId),
    queryFn: () => api.get<{ runs: Run[] }>(`${w(ws)}/runs?agentId=${encodeURIComponent(agentId)}&limit=500`),
    enabled: agentId !== '',
    retry: false,
  });
}

export function useOperatorPresence(ws: string) {
  return useQuery({
    queryKey: keys.operatorPresence(ws),
    queryFn: () => api.get<{ operators: OperatorHere[] }>(`${w(ws)}/presence/operators`),
    retry: false,
  });
}

export function useRenameConversation(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ conversationId, title }: { conversationId: string; title: string }) =>
      api.patch<Conversation>(`${w(ws)}/conversations/${encodeURIComponent(conversationId)}`, { title }),
    onSuccess: (conversation) => {
      writeFresherEntity(client, keys.conversation(ws, conversation.id), conversation);
      void client.invalidateQueries({ queryKey: keys.conversations(ws, conversation.spaceId) });
    },
  });
}

/** Says where this window is; the server forgets windows that stop saying so. */
export function reportHere(ws: string, body: { clientId: string; spaceId?: string | null; conversationId?: string | null }) {
  return api.post<{ operators: OperatorHere[]; updatedAt?: string }>(`${w(ws)}/presence/here`, body);
}

export function reportLeave(ws: string, clientId: string) {
  return api.post<void>(`${w(ws)}/presence/leave`, { clientId });
}
