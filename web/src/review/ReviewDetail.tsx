import { useMemo, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { useAgents } from '../api/hooks';
import { paths } from '../app/router';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Link } from '../ui/link';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { ErrorState, Loading } from '../ui/states';
import { findingStatusWord, ticketStatusWord } from '../ui/words';
import { parseDiff } from './diff-lines';
import { disagreements } from './disagreements';
import { AssessAxisForm } from './AssessAxisForm';
import { GatesPanel } from './GatesPanel';
import { PublishPanel } from './PublishPanel';
import { downloadExport, useFindingAction, useFindings, useReview, useReviewCommand, useReviewDiff, useReviewTickets, useVerdict, type Finding, type VerdictView } from './review-api';

const TYPES = ['bug', 'suggestion', 'recommendation', 'question', 'ticket'];
const PRIORITIES = ['P0', 'P1', 'P2', 'P3'];
const STATUSES = ['open', 'consensusReady', 'contested', 'dismissed', 'resolved'];
/** An axis's status in plain words (TRUTH-3: "not assessed" and "not run" are missing evidence, never a pass). */
const AXIS_WORDS: Record<VerdictView['axes'][number]['status'], string> = { pass: 'pass', fail: 'fail', notRun: 'not run', notAssessed: 'not assessed' };

/** One review: verdict banner, filters, the diff with findings on their lines, disagreements, tickets. */
export function ReviewDetail({ ws, reviewId }: { ws: string; reviewId: string }) {
  const review = useReview(ws, reviewId);
  const findings = useFindings(ws, reviewId);
  const verdict = useVerdict(ws, reviewId);
  const diff = useReviewDiff(ws, reviewId, review.data?.headSha);
  const tickets = useReviewTickets(ws, reviewId);
  const command = useReviewCommand(ws, reviewId);
  // TEAM-2: dispatching, finalizing, assessing and acting on findings are a member's; a viewer reads.
  const { role, canDecide } = useWorkspaceRole(ws);
  const [filters, setFilters] = useState({ type: '', priority: '', status: '' });
  const files = useMemo(() => parseDiff(diff.data?.diff ?? ''), [diff.data?.diff]);
  if (review.isPending || findings.isPending) return <Loading label="Loading review…" />;
  if (review.isError) return <ErrorState error={review.error} what="review" retry={() => void review.refetch()} />;
  if (findings.isError) return <ErrorState error={findings.error} what="findings" retry={() => void findings.refetch()} />;
  const all = findings.data.findings;
  const shown = all.filter((finding) => (!filters.type || finding.type === filters.type) && (!filters.priority || finding.priority === filters.priority) && (!filters.status || finding.status === filters.status));
  const repoWide = shown.filter((finding) => !finding.anchor);
  const conflicts = disagreements(all);
  return (
    <main className="page review-page">
      <header className="review-header">
        <h2>{review.data.title}</h2>
        <p className="muted">
          {review.data.repoPath} · base {review.data.base} <code>{review.data.baseSha.slice(0, 10)}</code> · head {review.data.head} <code>{review.data.headSha.slice(0, 10)}</code> · merge base{' '}
          <code>{review.data.mergeBaseSha.slice(0, 10)}</code> · round {review.data.round}
        </p>
        <div className="review-actions">
          {/* The review runs in a conversation of its review space: the reviewers' turns and what they said are there. */}
          <Link to={paths.conversation(ws, review.data.conversationId)} className="btn btn-ghost" data-testid="review-conversation-link">
            Open its conversation
          </Link>
          {canDecide ? (
            <>
              <button type="button" className="btn" onClick={() => command.mutate({ command: 'dispatch' })}>
                Dispatch reviewers
              </button>
              <button type="button" className="btn" onClick={() => command.mutate({ command: 'finalize' })}>
                Finalize
              </button>
            </>
          ) : null}
          <button type="button" className="btn btn-ghost" onClick={() => void downloadExport(ws, reviewId, 'sarif')}>
            SARIF
          </button>
          <button type="button" className="btn btn-ghost" onClick={() => void downloadExport(ws, reviewId, 'md')}>
            Markdown
          </button>
          {command.isError ? <span className="error" role="alert">{errorMessage(command.error)}</span> : null}
        </div>
        {canDecide ? null : <ReadOnlyNote role={role} needs="member" what="acting on a review" />}
      </header>
      <PublishPanel ws={ws} reviewId={reviewId} finalized={Boolean(review.data.verdict)} />
      {verdict.data ? <VerdictBanner verdict={verdict.data.published ?? verdict.data.current} published={Boolean(verdict.data.published)} dropped={findings.data.dropped} /> : null}
      <GatesPanel ws={ws} reviewId={reviewId} repoPath={review.data.repoPath} headSha={review.data.headSha} />
      {verdict.data && canDecide ? <AssessAxisForm ws={ws} reviewId={reviewId} axes={verdict.data.current.axes.filter((axis) => axis.kind === 'agent').map((axis) => axis.axis)} /> : null}
      <div className="review-filters" aria-label="Filters">
        <FilterSelect label="Type" value={filters.type} options={TYPES} onChange={(type) => setFilters({ ...filters, type })} />
        <FilterSelect label="Priority" value={filters.priority} options={PRIORITIES} onChange={(priority) => setFilters({ ...filters, priority })} />
        <FilterSelect label="Status" value={filters.status} options={STATUSES} wordOf={findingStatusWord} onChange={(status) => setFilters({ ...filters, status })} />
        <span className="muted" data-testid="finding-count">
          {shown.length} of {all.length} finding(s)
        </span>
      </div>
      {conflicts.length > 0 ? (
        <section className="review-disagreements" aria-label="Disagreements">
          <h3>Disagreements</h3>
          {conflicts.map(([a, b]) => (
            <p key={`${a.id}-${b.id}`}>
              {a.anchor!.path}:{a.anchor!.startLine}: {a.priority} ({a.id}) vs {b.priority} ({b.id})
            </p>
          ))}
        </section>
      ) : null}
      {repoWide.length > 0 ? (
        <section aria-label="Repository-wide findings">
          <h3>Repository-wide</h3>
          {repoWide.map((finding) => (
            <FindingCard key={finding.id} ws={ws} reviewId={reviewId} finding={finding} />
          ))}
        </section>
      ) : null}
      <section className="review-diff" aria-label="Diff">
        {diff.isPending ? <Loading label="Loading diff…" /> : null}
        {files.map((file) => {
          const anchored = shown.filter((finding) => finding.anchor?.path === file.path);
          return (
            <div key={file.path} className="diff-file" data-path={file.path}>
              <h4>{file.path}</h4>
              <table className="diff-table">
                <tbody>
                  {file.lines.map((line, index) => {
                    const here = line.newLine === null ? [] : anchored.filter((finding) => finding.anchor!.endLine === line.newLine);
                    return (
                      <LineRow key={index} kind={line.kind} oldLine={line.oldLine} newLine={line.newLine} text={line.text}>
                        {here.map((finding) => (
                          <FindingCard key={finding.id} ws={ws} reviewId={reviewId} finding={finding} />
                        ))}
                      </LineRow>
                    );
                  })}
                </tbody>
              </table>
            </div>
          );
        })}
      </section>
      <section aria-label="Tickets">
        <h3>Tickets</h3>
        {(tickets.data?.tickets ?? []).length === 0 ? <p className="muted">No tickets.</p> : null}
        <ul>
          {(tickets.data?.tickets ?? []).map((ticket) => (
            <li key={ticket.id}>
              {ticket.title} <span className="muted">({ticketStatusWord(ticket.status)})</span>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}

function LineRow({ kind, oldLine, newLine, text, children }: { kind: string; oldLine: number | null; newLine: number | null; text: string; children: ReactNode[] }) {
  return (
    <>
      <tr className={`diff-line diff-${kind}`} data-line={newLine ?? undefined}>
        <td className="diff-num">{oldLine ?? ''}</td>
        <td className="diff-num">{newLine ?? ''}</td>
        <td className="diff-text">
          <pre>{kind === 'add' ? '+' : kind === 'del' ? '-' : kind === 'ctx' ? ' ' : ''}{text}</pre>
        </td>
      </tr>
      {children.length > 0 ? (
        <tr className="diff-findings">
          <td colSpan={3}>{children}</td>
        </tr>
      ) : null}
    </>
  );
}

function VerdictBanner({ verdict, published, dropped }: { verdict: VerdictView; published: boolean; dropped: number }) {
  return (
    <section className={`verdict-banner verdict-${verdict.verdict}`} aria-label="Verdict" data-testid="verdict-banner">
      <strong>{verdict.verdict.toUpperCase()}</strong> <span>confidence {verdict.confidence}</span> <span className="muted">{published ? 'published' : 'current (not finalized)'}</span>
      <span className="muted">
        {' '}
        · {verdict.counts.open} open (P0 {verdict.counts.p0}, P1 {verdict.counts.p1}, P2 {verdict.counts.p2}, P3 {verdict.counts.p3}) · {verdict.delta.summary}
        {dropped > 0 ? ` · ${dropped} dropped (no valid priority/confidence)` : ''}
      </span>
      {verdict.headline ? <p>{verdict.headline}</p> : null}
      <ul className="verdict-reasons">
        {verdict.reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <div className="verdict-axes">
        {verdict.axes.map((axis) => (
          <span key={`${axis.kind}-${axis.axis}`} className={`axis-chip axis-${axis.status}`} title={axis.detail ?? ''} data-testid="axis">
            {axis.kind === 'gated' ? '⚙ ' : ''}
            {axis.axis}: {AXIS_WORDS[axis.status]}
          </span>
        ))}
      </div>
      {/* What each pass rests on; what is missing is already in the reasons above. */}
      <ul className="verdict-evidence" aria-label="Evidence per axis">
        {verdict.axes.filter((axis) => axis.status === 'pass').map((axis) => (
          <li key={`${axis.kind}-${axis.axis}`} data-testid="axis-evidence">
            {axis.kind === 'gated' ? 'gate ' : ''}
            {axis.axis}: {axis.detail ?? AXIS_WORDS[axis.status]}
          </li>
        ))}
      </ul>
    </section>
  );
}

function FilterSelect({ label, value, options, onChange, wordOf = (option) => option }: { label: string; value: string; options: string[]; onChange: (value: string) => void; wordOf?: (option: string) => string }) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(event) => onChange(event.target.value)} aria-label={`Filter by ${label.toLowerCase()}`}>
        <option value="">all</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {wordOf(option)}
          </option>
        ))}
      </select>
    </label>
  );
}

function FindingCard({ ws, reviewId, finding }: { ws: string; reviewId: string; finding: Finding }) {
  const action = useFindingAction(ws, reviewId);
  const agents = useAgents(ws);
  const author = finding.author.kind === 'agent' ? (agents.data?.agents.find((agent) => agent.id === finding.author.id)?.name ?? finding.author.id) : 'operator';
  const [asking, setAsking] = useState<'dismiss' | 'contest' | null>(null);
  const [reason, setReason] = useState('');
  const { canDecide } = useWorkspaceRole(ws);
  const live = canDecide && (finding.status === 'open' || finding.status === 'consensusReady' || finding.status === 'contested');
  return (
    <article className={`finding finding-${finding.priority} finding-status-${finding.status}`} data-testid="finding" data-finding-id={finding.id}>
      <header>
        <strong>
          {finding.priority} {finding.type}
        </strong>{' '}
        <span className="muted">
          {findingStatusWord(finding.status)} · confidence {finding.confidence} · by {author}
          {finding.anchor ? ` · ${finding.anchor.path}:${finding.anchor.startLine}-${finding.anchor.endLine}` : ''}
          {finding.carry !== 'new' ? ` · ${finding.carry === 'stillOpen' ? 'still open' : 'not verifiable'}` : ''}
        </span>
      </header>
      <p className="finding-body">{finding.body}</p>
      {finding.statusReason ? <p className="muted">Reason: {finding.statusReason}</p> : null}
      {live ? (
        <div className="finding-actions">
          <button type="button" className="btn btn-small" onClick={() => action.mutate({ findingId: finding.id, action: 'confirm' })}>
            Confirm
          </button>
          <button type="button" className="btn btn-small" onClick={() => setAsking('dismiss')}>
            Dismiss
          </button>
          <button type="button" className="btn btn-small" onClick={() => setAsking('contest')}>
            Contest
          </button>
          <button type="button" className="btn btn-small" onClick={() => action.mutate({ findingId: finding.id, action: 'resolve' })}>
            Resolve
          </button>
        </div>
      ) : null}
      {asking ? (
        <form
          className="finding-reason"
          onSubmit={(event) => {
            event.preventDefault();
            action.mutate({ findingId: finding.id, action: asking, reason }, { onSuccess: () => setAsking(null) });
          }}
        >
          <input aria-label="Reason" value={reason} onChange={(event) => setReason(event.target.value)} placeholder={`Why ${asking}?`} required />
          <button type="submit" className="btn btn-small">
            {asking === 'dismiss' ? 'Dismiss finding' : 'Contest finding'}
          </button>
        </form>
      ) : null}
      {action.isError ? (
        <p className="error" role="alert">
          {errorMessage(action.error)}
        </p>
      ) : null}
    </article>
  );
}
