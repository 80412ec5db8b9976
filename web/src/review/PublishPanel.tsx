import { errorMessage } from '../api/client';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { usePublication, usePublish } from './review-api';

/** What a publication's state means, in plain words. */
const STATUS_WORDS: Record<string, string> = {
  awaitingApproval: 'waiting for approval in the Inbox',
  publishing: 'being sent',
  published: 'published',
  rejected: 'not sent: the approval was rejected',
  failed: 'not sent: it failed',
};

/**
 * The pull request a review came from and "Publish to pull request": one review with inline
 * comments, gated by the policy for publishing to pull requests. Hidden for reviews of a local repository.
 */
export function PublishPanel({ ws, reviewId, finalized }: { ws: string; reviewId: string; finalized: boolean }) {
  const state = usePublication(ws, reviewId);
  const publish = usePublish(ws, reviewId);
  const { canDecide } = useWorkspaceRole(ws);
  const pullRequest = state.data?.pullRequest;
  if (!pullRequest) return null;
  const publication = state.data?.publication ?? null;
  const done = publication && publication.status !== 'rejected' && publication.status !== 'failed';
  return (
    <section className="review-publish" aria-label="Pull request">
      <a href={pullRequest.webUrl} target="_blank" rel="noreferrer noopener">
        {pullRequest.owner}/{pullRequest.repo}#{pullRequest.number}
      </a>{' '}
      {publication ? (
        <span role="status">
          Verdict {STATUS_WORDS[publication.status] ?? publication.status} ({publication.commentCount} inline comment{publication.commentCount === 1 ? '' : 's'})
          {publication.error ? ` — ${publication.error}` : ''}
        </span>
      ) : null}{' '}
      {!done && canDecide ? (
        <button type="button" className="btn" disabled={!finalized || publish.isPending} title={finalized ? undefined : 'Finalize the review first'} onClick={() => publish.mutate()}>
          Publish to pull request
        </button>
      ) : null}
      {publish.isError ? <span className="error" role="alert">{errorMessage(publish.error)}</span> : null}
    </section>
  );
}
