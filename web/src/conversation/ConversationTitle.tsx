import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useRenameConversation } from '../api/control-hooks';
import type { Conversation } from '../api/types';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { FieldError } from '../ui/states';

/**
 * The conversation's title, editable (UI): an untitled conversation is named by the server after its
 * first message (deterministic, no model call); the operator can rename it at any time.
 */
export function ConversationTitle({ ws, conversation }: { ws: string; conversation: Conversation }) {
  const rename = useRenameConversation(ws);
  const [draft, setDraft] = useState<string | null>(null);
  // TEAM-2: renaming is a member's; a viewer sees the title only.
  const { canDecide } = useWorkspaceRole(ws);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (draft === null) return;
    try {
      await rename.mutateAsync({ conversationId: conversation.id, title: draft });
      setDraft(null);
    } catch {
      // shown below
    }
  };
  if (draft === null) {
    return (
      <div className="title-row">
        <h2 data-testid="conversation-title">{conversation.title}</h2>
        {canDecide ? (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => { rename.reset(); setDraft(conversation.title); }} aria-label="Rename conversation">
          {/* On a phone only the pencil shows, so the title keeps the line. */}
          <span aria-hidden="true" className="rename-icon">
            ✎
          </span>
          <span className="rename-word">Rename</span>
        </button>
        ) : null}
      </div>
    );
  }
  const error = rename.error instanceof ApiError ? (rename.error.messageFor('title') ?? errorMessage(rename.error)) : rename.error ? errorMessage(rename.error) : null;
  return (
    <form className="title-row title-form" onSubmit={submit} noValidate aria-label="Rename conversation">
      <label className="sr-only" htmlFor="conversation-title-input">
        Title
      </label>
      <input
        id="conversation-title-input"
        className="input"
        value={draft}
        autoFocus
        aria-invalid={Boolean(error)}
        aria-describedby={error ? 'conversation-title-error' : undefined}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setDraft(null);
        }}
      />
      <button type="submit" className="btn btn-primary btn-small" disabled={rename.isPending}>
        Save
      </button>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => setDraft(null)}>
        Cancel
      </button>
      <FieldError id="conversation-title-error" message={error ? `Title: ${error}` : null} />
    </form>
  );
}
