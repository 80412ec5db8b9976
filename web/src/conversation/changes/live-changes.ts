import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { onWorkspaceEvent } from '../../api/events';
import { keys } from '../../api/keys';
import type { Run } from '../../api/types';
import { changesKey } from './changes-api';

/** Fewest milliseconds between two refreshes while a run writes: a run may end a tool call many times a second. */
const REFRESH_GAP_MS = 1000;

/**
 * Keeps the Changes view live (CHG-1): when one of the conversation's runs ends a tool call (a write,
 * a shell command) or ends, the changes are read again — at most once a second, and once more after
 * the last event, so the final state is always shown.
 */
export function useLiveChanges(ws: string, conversationId: string): void {
  const client = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const refresh = () => {
      if (timer) return;
      const wait = Math.max(0, last + REFRESH_GAP_MS - Date.now());
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        void client.invalidateQueries({ queryKey: [...changesKey(ws, conversationId), 'list'] });
      }, wait);
    };
    // The turns are listed per conversation; a subagent's or delegate's run is learned from its own
    // run events (they carry the conversation), since it writes in the same checkout.
    const childRuns = new Set<string>();
    const ofThisConversation = (runId: string) => childRuns.has(runId) || (client.getQueryData<{ runs: Run[] }>(keys.runs(ws, conversationId))?.runs.some((run) => run.id === runId) ?? false);
    const unsubscribe = onWorkspaceEvent((event) => {
      if (event.type === 'run.event' && event.data.event.type === 'tool_call_end' && ofThisConversation(event.data.runId)) refresh();
      if ((event.type === 'run.updated' || event.type === 'run.created') && event.data.conversationId === conversationId) {
        if (event.data.parentRunId !== null) childRuns.add(event.data.id);
        refresh();
      }
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [client, ws, conversationId]);
}
