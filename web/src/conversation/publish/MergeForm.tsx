import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { FieldError } from '../../ui/states';
import { useMerge } from './publish-hooks';

/**
 * CHG-2: merge the conversation's branch into a branch of the user's repository — a fast-forward
 * when possible, else a merge commit (unless "fast-forward only"). The server refuses conflicts
 * (naming the files), a dirty checked-out tree and anything that would need force; the reason shows here.
 */
export function MergeForm({ ws, conversationId }: { ws: string; conversationId: string }) {
  const merge = useMerge(ws, conversationId);
  const [into, setInto] = useState('');
  const [ffOnly, setFfOnly] = useState(false);
  return (
    <form
      className="inline merge-form"
      data-testid="merge-form"
      onSubmit={(event) => {
        event.preventDefault();
        merge.mutate({ into: into.trim(), ...(ffOnly ? { ffOnly: true } : {}) });
      }}
    >
      <input aria-label="Merge into branch" placeholder="Merge into branch (main)" value={into} onChange={(event) => setInto(event.target.value)} />
      <label className="checkbox small">
        <input type="checkbox" checked={ffOnly} onChange={(event) => setFfOnly(event.target.checked)} />
        Fast-forward only
      </label>
      <button type="submit" className="btn btn-small" disabled={merge.isPending || into.trim() === ''}>
        Merge
      </button>
      {merge.isError ? <FieldError message={errorMessage(merge.error)} /> : null}
    </form>
  );
}
