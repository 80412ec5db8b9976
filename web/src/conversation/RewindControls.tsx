import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConversationRewind } from '@server/schemas/rewind';
import { api, errorMessage } from '../api/client';
import { keys } from '../api/keys';
import type { Message } from '../api/types';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';

const rewindsKey = (ws: string, conversationId: string) => ['ws', ws, 'rewinds', conversationId] as const;
const conversationPath = (ws: string, conversationId: string) => `/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(conversationId)}`;

function useRewindChanged(ws: string, conversationId: string) {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: keys.messages(ws, conversationId) });
    void client.invalidateQueries({ queryKey: rewindsKey(ws, conversationId) });
  };
}

/**
 * CTX-3: "Rewind to before this" on an operator's message. The server returns the checkout to the
 * checkpoint of the turn the message started and archives the message and what followed (restorable
 * from the banner); it refuses while a turn is running, and says so here.
 */
export function RewindButton({ ws, message }: { ws: string; message: Message }) {
  const changed = useRewindChanged(ws, message.conversationId);
  const rewind = useMutation({
    mutationFn: () => api.post<ConversationRewind>(`${conversationPath(ws, message.conversationId)}/rewind`, { messageId: message.id }),
    onSuccess: changed,
  });
  return (
    <>
      <button
        type="button"
        className="btn btn-ghost btn-small"
        data-testid="rewind-button"
        disabled={rewind.isPending}
        title="Rewind the conversation to before this message: the checkout returns to this turn's checkpoint, this message and what followed leave the history (archived, restorable)"
        onClick={() => rewind.mutate()}
      >
        Rewind to before this
      </button>
      {rewind.error ? <FieldError message={errorMessage(rewind.error)} /> : null}
    </>
  );
}

/** CTX-3: the conversation's rewinds that can still be undone, each with Restore. */
export function RewindBanner({ ws, conversationId }: { ws: string; conversationId: string }) {
  const changed = useRewindChanged(ws, conversationId);
  const rewinds = useQuery({
    queryKey: rewindsKey(ws, conversationId),
    queryFn: () => api.get<{ rewinds: ConversationRewind[] }>(`${conversationPath(ws, conversationId)}/rewinds`),
  });
  const restore = useMutation({
    mutationFn: (rewindId: string) => api.post<ConversationRewind>(`${conversationPath(ws, conversationId)}/rewinds/${encodeURIComponent(rewindId)}/restore`),
    onSuccess: changed,
  });
  // TEAM-2: restoring is a member's (the route's declared role); a viewer still reads what was rewound.
  const { canDecide } = useWorkspaceRole(ws);
  const open = (rewinds.data?.rewinds ?? []).filter((rewind) => rewind.restoredAt === null);
  if (open.length === 0) return null;
  return (
    <ul className="rewind-banner" aria-label="Rewinds" data-testid="rewind-banner">
      {open.map((rewind) => (
        <li key={rewind.id} className="small" data-testid="rewind-entry">
          Rewound: {rewind.archivedMessages} message{rewind.archivedMessages === 1 ? '' : 's'} archived
          {rewind.checkpointCommit ? `, checkout back at ${rewind.checkpointCommit.slice(0, 12)}` : ''}.{' '}
          {canDecide ? (
            <button type="button" className="btn btn-small" data-testid="restore-rewind" disabled={restore.isPending} onClick={() => restore.mutate(rewind.id)}>
              Restore
            </button>
          ) : null}
        </li>
      ))}
      {restore.error ? <FieldError message={errorMessage(restore.error)} /> : null}
    </ul>
  );
}
