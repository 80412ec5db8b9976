import { useState } from 'react';
import type { ConversationMerge, ConversationPublication } from '@server/schemas/publish';
import { errorMessage } from '../../api/client';
import { FieldError } from '../../ui/states';
import { MergeForm } from './MergeForm';
import { PendingPublicationEditor, PublishForm } from './PublishForm';
import { useDestinations, useRefreshPublication } from './publish-hooks';

/** Only a web address is ever made a link (the server builds it from the configured forge; checked again here). */
const WEB_ADDRESS = /^https?:\/\//i;

const STATUS_WORDS: Record<ConversationPublication['status'], string> = {
  awaitingApproval: 'waiting for approval',
  publishing: 'being sent',
  published: 'published',
  rejected: 'not sent (rejected)',
  failed: 'failed',
};

function PullRequestLine({ ws, publication }: { ws: string; publication: ConversationPublication }) {
  const refresh = useRefreshPublication(ws, publication.conversationId);
  const label = publication.number ? `Pull request #${publication.number}${publication.prState ? ` (${publication.prState})` : ''}` : `Pull request on ${publication.owner}/${publication.repo}`;
  return (
    <div className="small" data-testid="publication-status" data-status={publication.status}>
      {publication.webUrl && WEB_ADDRESS.test(publication.webUrl) ? (
        <a href={publication.webUrl} target="_blank" rel="noopener noreferrer" data-testid="pull-request-link">
          {label}
        </a>
      ) : (
        label
      )}{' '}
      — {STATUS_WORDS[publication.status]}
      {publication.headSha ? <span className="muted"> at {publication.headSha.slice(0, 12)}</span> : null}
      {publication.number ? (
        <button type="button" className="btn btn-ghost btn-small" title="Read the pull request's state from the forge again" disabled={refresh.isPending} onClick={() => refresh.mutate()}>
          Refresh
        </button>
      ) : null}
      {publication.error && publication.status !== 'published' ? <div className="muted">{publication.error}</div> : null}
      {refresh.isError ? <FieldError message={errorMessage(refresh.error)} /> : null}
    </div>
  );
}

function MergeLine({ merge }: { merge: ConversationMerge }) {
  return (
    <li className="small" data-testid="merge-entry">
      Merged into <code>{merge.targetBranch}</code> {merge.kind === 'fastForward' ? '(fast-forward)' : '(merge commit)'}: {merge.mergedSha.slice(0, 12)}
    </li>
  );
}

/**
 * CHG-2: where the conversation's work went — its pull request (link, state, the commit it shows)
 * and its merges into local branches — with the actions that send it there.
 */
export function PublishPanel({ ws, conversationId }: { ws: string; conversationId: string }) {
  const destinations = useDestinations(ws, conversationId);
  const [composing, setComposing] = useState(false);
  const publication = destinations.data?.publication ?? null;
  const merges = destinations.data?.merges ?? [];
  const pending = publication?.status === 'awaitingApproval';
  return (
    <section aria-labelledby="destinations-title" data-testid="publish-panel">
      <h3 id="destinations-title">Where the work went</h3>
      {destinations.isError ? <FieldError message={errorMessage(destinations.error)} /> : null}
      {publication ? <PullRequestLine ws={ws} publication={publication} /> : <div className="muted small">Not published yet.</div>}
      {merges.length > 0 ? <ul className="merge-list">{merges.map((merge) => <MergeLine key={merge.id} merge={merge} />)}</ul> : null}
      {pending && publication ? (
        <PendingPublicationEditor key={publication.approvalId ?? 'pending'} ws={ws} publication={publication} />
      ) : composing ? (
        <PublishForm ws={ws} conversationId={conversationId} onDone={() => setComposing(false)} />
      ) : (
        <button type="button" className="btn btn-small" disabled={publication?.status === 'publishing'} onClick={() => setComposing(true)}>
          {publication?.number ? 'Update pull request…' : 'Publish pull request…'}
        </button>
      )}
      <MergeForm ws={ws} conversationId={conversationId} />
    </section>
  );
}
