import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { api, errorMessage } from '../api/client';
import { writeFresherSpace } from '../api/fresher-write';
import type { Space } from '../api/types';
import { AUTONOMY_LABELS, MODE_LABELS } from '../app/picker';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';
import { autonomyExplained } from '../ui/words';

const PICKABLE_MODES = ['chat', 'plan', 'orchestrate'] as const;
const LEVELS = ['proposeOnly', 'askFirst', 'actWithApproval', 'actFreely'] as const;

/**
 * The space's mode and autonomy dial, in the conversation's header (MODE-4, POL-5): both are always
 * in sight — picking Ask in the composer moves the dial, approving a plan leaves Plan mode — and an
 * admin changes either here; others read both. The server says each change in the conversation.
 */
export function SpaceModeBar({ ws, space }: { ws: string; space: Space }) {
  const client = useQueryClient();
  const { canAdminister } = useWorkspaceRole(ws);
  const id = useId();
  const change = useMutation({
    mutationFn: (body: { mode: Space['mode'] } | { autonomy: Space['autonomy'] }) => api.patch<Space>(`/api/workspaces/${encodeURIComponent(ws)}/spaces/${encodeURIComponent(space.id)}`, body),
    // The answer can land after a newer `space.updated` (a rename made meanwhile): never put the older space back.
    onSuccess: (updated) => writeFresherSpace(client, ws, updated),
  });
  // TEAM-2: changing the space is an admin's (the route's declared role); everyone else reads the
  // mode and the dial as plain words, so nothing looks like a control that the server would refuse.
  if (!canAdminister) {
    return (
      <div className="space-mode-bar small" data-testid="space-mode-bar" role="group" aria-label={`Mode and autonomy of ${space.name}`}>
        <span data-testid="space-mode-text">Mode: {space.mode === 'review' ? 'Review (read-only)' : MODE_LABELS[space.mode]}</span>
        <span data-testid="space-autonomy-text" title={autonomyExplained(space.autonomy)}>
          Autonomy: {AUTONOMY_LABELS[space.autonomy]}
        </span>
      </div>
    );
  }
  const locked = change.isPending;
  return (
    <div className="space-mode-bar small" data-testid="space-mode-bar" role="group" aria-label={`Mode and autonomy of ${space.name}`}>
      {space.mode === 'review' ? (
        <span data-testid="space-mode">Mode: Review (read-only)</span>
      ) : (
        <span className="inline">
          <label htmlFor={`${id}-mode`} className="muted dial-label">
            Mode
          </label>
          <select id={`${id}-mode`} data-testid="space-mode" value={space.mode} disabled={locked} onChange={(event) => change.mutate({ mode: event.target.value as Space['mode'] })}>
            {PICKABLE_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {MODE_LABELS[mode]}
              </option>
            ))}
          </select>
        </span>
      )}
      <span className="inline">
        <label htmlFor={`${id}-autonomy`} className="muted dial-label">
          Autonomy
        </label>
        <select
          id={`${id}-autonomy`}
          data-testid="space-autonomy"
          value={space.autonomy}
          disabled={locked}
          title={autonomyExplained(space.autonomy)}
          onChange={(event) => change.mutate({ autonomy: event.target.value as Space['autonomy'] })}
        >
          {LEVELS.map((level) => (
            <option key={level} value={level}>
              {AUTONOMY_LABELS[level]}
            </option>
          ))}
        </select>
      </span>
      {change.isError ? <FieldError message={`Not changed: ${errorMessage(change.error)}`} /> : null}
    </div>
  );
}
