import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useBranchConversation } from '../api/hooks';
import type { Conversation } from '../api/types';
import { navigate, paths } from '../app/router';
import { FieldError } from '../ui/states';

/**
 * "Branch" asks for the new conversation's name before creating it: one stray click must not leave
 * an empty branch behind. From a message, the branch keeps the conversation up to that message.
 */
export function BranchForm({ ws, conversation, fromMessageId, onClose }: { ws: string; conversation: Conversation; fromMessageId: string | null; onClose: () => void }) {
  const branch = useBranchConversation(ws);
  const [title, setTitle] = useState(`${conversation.title} (branch)`);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await branch.mutateAsync({ conversationId: conversation.id, title: title.trim(), ...(fromMessageId ? { fromMessageId } : {}) });
      onClose();
      navigate(paths.conversation(ws, created.id));
    } catch {
      // shown below
    }
  };
  return (
    <form className="branch-form" onSubmit={(event) => void submit(event)} aria-label="New branch" data-testid="branch-form">
      <span className="small">{fromMessageId ? 'Branch from this message as:' : 'Branch this conversation as:'}</span>
      <input aria-label="Branch name" value={title} autoFocus onChange={(event) => setTitle(event.target.value)} onFocus={(event) => event.target.select()} />
      <button type="submit" className="btn btn-primary btn-small" disabled={branch.isPending || title.trim() === ''}>
        Create branch
      </button>
      <button type="button" className="btn btn-small" onClick={onClose}>
        Cancel
      </button>
      {branch.isError ? <FieldError message={errorMessage(branch.error)} /> : null}
    </form>
  );
}
