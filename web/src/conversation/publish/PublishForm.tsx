import { useState } from 'react';
import type { ConversationPublication, PublishDraft } from '@server/schemas/publish';
import { errorMessage } from '../../api/client';
import { FieldError } from '../../ui/states';
import { useEditPublication, usePublish, usePublishDraft } from './publish-hooks';

/** Title and body fields of a pull request, edited before anything is sent. */
function PullRequestFields({ title, body, onTitle, onBody }: { title: string; body: string; onTitle: (value: string) => void; onBody: (value: string) => void }) {
  return (
    <>
      <label className="field small">
        Title
        <input aria-label="Pull request title" value={title} maxLength={256} onChange={(event) => onTitle(event.target.value)} />
      </label>
      <label className="field small">
        Body
        <textarea aria-label="Pull request body" value={body} rows={10} onChange={(event) => onBody(event.target.value)} />
      </label>
    </>
  );
}

/**
 * CHG-2: the pull request written from the conversation (goal, plan, what changed, tests, review),
 * shown to edit; "Ask to publish" requests the one approval that covers the push and the pull request.
 */
export function PublishForm({ ws, conversationId, onDone }: { ws: string; conversationId: string; onDone: () => void }) {
  const draft = usePublishDraft(ws, conversationId, true);
  if (draft.isError) return <FieldError message={errorMessage(draft.error)} />;
  if (!draft.data) return <div className="muted small">Writing the pull request from the conversation…</div>;
  return <DraftEditor ws={ws} conversationId={conversationId} draft={draft.data} onDone={onDone} />;
}

/** The written text fills the fields once; after that they are the operator's. */
function DraftEditor({ ws, conversationId, draft, onDone }: { ws: string; conversationId: string; draft: PublishDraft; onDone: () => void }) {
  const publish = usePublish(ws, conversationId);
  const [title, setTitle] = useState(draft.title);
  const [body, setBody] = useState(draft.body);
  return (
    <form
      className="publish-form"
      data-testid="publish-form"
      onSubmit={(event) => {
        event.preventDefault();
        publish.mutate({ title, body }, { onSuccess: onDone });
      }}
    >
      <div className="small">
        Push <code>{draft.headBranch}</code> to {draft.remoteName} ({draft.owner}/{draft.repo}) and open a pull request into <code>{draft.baseBranch}</code>.
      </div>
      <PullRequestFields title={title} body={body} onTitle={setTitle} onBody={setBody} />
      <div className="approval-actions">
        <button type="submit" className="btn btn-primary btn-small" disabled={publish.isPending || title.trim() === ''}>
          Ask to publish
        </button>
        <button type="button" className="btn btn-ghost btn-small" onClick={onDone}>
          Cancel
        </button>
      </div>
      {publish.isError ? <FieldError message={errorMessage(publish.error)} /> : null}
    </form>
  );
}

/** A publish waiting for its approval: its title and body can still be changed; the approval card then shows the new text. */
export function PendingPublicationEditor({ ws, publication }: { ws: string; publication: ConversationPublication }) {
  const edit = useEditPublication(ws, publication.conversationId);
  const [title, setTitle] = useState(publication.title);
  const [body, setBody] = useState(publication.body);
  const changed = title !== publication.title || body !== publication.body;
  return (
    <form
      className="publish-form"
      data-testid="pending-publication"
      onSubmit={(event) => {
        event.preventDefault();
        edit.mutate({ title, body });
      }}
    >
      <div className="small">Waiting for approval: the approval in this conversation sends it. Until then the text can change.</div>
      <PullRequestFields title={title} body={body} onTitle={setTitle} onBody={setBody} />
      <button type="submit" className="btn btn-small" disabled={edit.isPending || !changed || title.trim() === ''}>
        Save edits
      </button>
      {edit.isError ? <FieldError message={errorMessage(edit.error)} /> : null}
    </form>
  );
}
