import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api/client';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Link } from '../ui/link';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { Empty, ErrorState, Loading } from '../ui/states';
import { paths } from '../app/router';
import { ReviewDetail } from './ReviewDetail';
import { useOpenReview, useReviews } from './review-api';
import './review.css';

/** Reviews (REV-1, MODE-6): the list, a form to open one, and one review's detail. */
export function ReviewsPage({ ws, reviewId }: { ws: string; reviewId: string | null }) {
  if (reviewId) return <ReviewDetail ws={ws} reviewId={reviewId} />;
  return <ReviewList ws={ws} />;
}

function ReviewList({ ws }: { ws: string }) {
  const reviews = useReviews(ws);
  // TEAM-2: opening a review is a member's; a viewer reads the list.
  const { role, canDecide } = useWorkspaceRole(ws);
  if (reviews.isPending) return <Loading label="Loading reviews…" />;
  if (reviews.isError) return <ErrorState error={reviews.error} what="reviews" retry={() => void reviews.refetch()} />;
  return (
    <main className="page review-page">
      <h2>Reviews</h2>
      {canDecide ? <OpenReviewForm ws={ws} /> : <ReadOnlyNote role={role} needs="member" what="opening a review" />}
      {reviews.data.reviews.length === 0 ? (
        <Empty title="No reviews yet">{canDecide ? 'Open one above: a repository, a base and a head.' : 'A member opens one.'}</Empty>
      ) : (
        <ul className="review-list" aria-label="Reviews">
          {reviews.data.reviews.map((review) => (
            <li key={review.id}>
              <Link to={paths.reviews(ws, review.id)}>{review.title}</Link>{' '}
              <span className="muted">
                {review.base}…{review.head} · round {review.round} · {review.filesChanged} file(s)
              </span>{' '}
              {review.verdict ? <span className={`verdict-chip verdict-${review.verdict.verdict}`}>{review.verdict.verdict}</span> : <span className="muted">not finalized</span>}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

function OpenReviewForm({ ws }: { ws: string }) {
  const open = useOpenReview(ws);
  const [prUrl, setPrUrl] = useState('');
  const [repoPath, setRepoPath] = useState('');
  const [base, setBase] = useState('main');
  const [head, setHead] = useState('');
  const [reviewers, setReviewers] = useState('qa, architect, engineer');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const names = reviewers.split(',').map((name) => name.trim()).filter(Boolean);
    const source = prUrl.trim() !== '' ? { prUrl: prUrl.trim() } : { repoPath, base, head };
    open.mutate({ ...source, ...(names.length > 0 ? { reviewers: names } : {}) });
  };
  return (
    <form className="review-open" onSubmit={submit} aria-label="Open a review">
      <label>
        Pull request <input value={prUrl} onChange={(event) => setPrUrl(event.target.value)} placeholder="https://github.com/owner/repo/pull/1" type="url" />
      </label>
      <span className="muted">or</span>
      <label>
        Repository <input value={repoPath} onChange={(event) => setRepoPath(event.target.value)} placeholder="/path/to/repo" required={prUrl.trim() === ''} disabled={prUrl.trim() !== ''} />
      </label>
      <label>
        Base <input value={base} onChange={(event) => setBase(event.target.value)} required={prUrl.trim() === ''} disabled={prUrl.trim() !== ''} />
      </label>
      <label>
        Head <input value={head} onChange={(event) => setHead(event.target.value)} required={prUrl.trim() === ''} disabled={prUrl.trim() !== ''} />
      </label>
      <label>
        Reviewers <input value={reviewers} onChange={(event) => setReviewers(event.target.value)} />
      </label>
      <button type="submit" className="btn" disabled={open.isPending}>
        Open review
      </button>
      {open.isError ? <p className="error" role="alert">{errorMessage(open.error)}</p> : null}
      {open.data ? (
        <p role="status">
          {open.data.created ? 'Opened' : open.data.reReview ? 'Re-review started for' : 'Already open:'} <Link to={paths.reviews(ws, open.data.review.id)}>{open.data.review.title}</Link>
        </p>
      ) : null}
    </form>
  );
}
