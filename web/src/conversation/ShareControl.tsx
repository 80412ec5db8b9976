import { useState } from 'react';
import { errorMessage } from '../api/client';
import { useConversationShares, useCreateShare, useRevokeShare } from '../api/share-hooks';
import { FieldError } from '../ui/states';

/**
 * RLY-3: the operator's read-only share links of a conversation. A new link is shown once (only its
 * hash is kept); live links can be revoked, after which they open nothing.
 */
export function ShareControl({ ws, conversationId }: { ws: string; conversationId: string }) {
  const [open, setOpen] = useState(false);
  const [fresh, setFresh] = useState<string | null>(null);
  const shares = useConversationShares(ws, conversationId, open);
  const create = useCreateShare(ws, conversationId);
  const revoke = useRevokeShare(ws, conversationId);
  const live = (shares.data?.shares ?? []).filter((share) => share.revokedAt === null);
  return (
    <div className="share-control">
      <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => setOpen((value) => !value)}>
        Share…
      </button>
      {open ? (
        <section className="share-panel card" aria-label="Share read-only" data-testid="share-panel">
          <p className="muted small">Anyone with a link can read this conversation's messages — nothing else — until you revoke it.</p>
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={create.isPending}
            onClick={() => create.mutate(undefined, { onSuccess: (created) => setFresh(`${window.location.origin}${created.path}`) })}
          >
            Create read-only link
          </button>
          {fresh ? (
            <p className="small">
              Copy it now, it is shown once:{' '}
              <input className="input share-link" readOnly value={fresh} aria-label="Share link" data-testid="share-link" onFocus={(event) => event.currentTarget.select()} />
            </p>
          ) : null}
          <FieldError message={create.error ? errorMessage(create.error) : revoke.error ? errorMessage(revoke.error) : null} />
          {live.length > 0 ? (
            <ul className="plain-list">
              {live.map((share) => (
                <li key={share.id} className="small">
                  Link made {new Date(share.createdAt).toLocaleString()}{' '}
                  <button type="button" className="btn btn-ghost btn-small" disabled={revoke.isPending} onClick={() => revoke.mutate(share.id)}>
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
