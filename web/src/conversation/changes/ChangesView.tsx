import { useMemo, useState } from 'react';
import { errorMessage } from '../../api/client';
import { navigate, paths } from '../../app/router';
import { parseDiff, type DiffLine } from '../../review/diff-lines';
import '../../review/review.css';
import { Empty, ErrorState, Loading } from '../../ui/states';
import { CHANGES_PAGE, useChangeDiff, useChanges, useOpenChangesReview, type ChangedFile, type ConversationChanges } from './changes-api';
import { highlightLine, languageOf } from './highlight-line';
import { useLiveChanges } from './live-changes';
import './changes.css';

const STATUS_WORD: Record<ChangedFile['status'], string> = { added: 'added', removed: 'removed', modified: 'modified', renamed: 'renamed', copied: 'copied', typeChanged: 'type changed' };
const STATUS_LETTER: Record<ChangedFile['status'], string> = { added: 'A', removed: 'D', modified: 'M', renamed: 'R', copied: 'C', typeChanged: 'T' };

type Selected = Pick<ChangedFile, 'path' | 'oldPath'>;

/**
 * CHG-1: what the conversation changed against its base — the files with status and counts, the
 * totals, one file's diff highlighted — in total or for one turn, refreshed while a run writes; and
 * the one action that opens a review of the branch.
 */
export default function ChangesView({ ws, conversationId }: { ws: string; conversationId: string }) {
  useLiveChanges(ws, conversationId);
  const [turn, setTurn] = useState<number | null>(null);
  const [offset, setOffset] = useState(0);
  const [selected, setSelected] = useState<Selected | null>(null);
  const changes = useChanges(ws, conversationId, turn, offset);
  const review = useOpenChangesReview(ws, conversationId);
  if (changes.isPending) return <Loading label="Reading the changes…" />;
  if (changes.isError) return <ErrorState error={changes.error} what="the changes" retry={() => void changes.refetch()} />;
  const data = changes.data;
  const { totals, page } = data;
  const chooseTurn = (value: string) => {
    setTurn(value === '' ? null : Number(value));
    setOffset(0);
    setSelected(null);
  };
  const shown = selected && data.files.some((file) => file.path === selected.path && file.oldPath === selected.oldPath) ? selected : null;
  return (
    <section className="changes-view" aria-label="Changes">
      <div className="changes-toolbar">
        <label className="changes-turn">
          Show{' '}
          <select value={turn ?? ''} onChange={(event) => chooseTurn(event.target.value)} aria-label="Turn">
            <option value="">All turns (against the base)</option>
            {data.turns.map((entry) => (
              <option key={entry.runId} value={entry.number}>
                Turn {entry.number}
                {entry.checkpoint ? '' : ' (changed nothing)'}
              </option>
            ))}
          </select>
        </label>
        <span className="changes-totals" data-testid="changes-totals">
          {totals.files} file{totals.files === 1 ? '' : 's'} changed, <span className="changes-add">+{totals.additions}</span> <span className="changes-del">−{totals.deletions}</span>
          {totals.binary ? `, ${totals.binary} binary` : ''}
        </span>
        {data.live ? <span className="muted small">uncommitted work included · live</span> : null}
        <button
          type="button"
          className="btn btn-small"
          disabled={review.isPending}
          onClick={() => review.mutate(undefined, { onSuccess: (opened) => navigate(paths.reviews(ws, opened.reviewId)) })}
        >
          {review.isPending ? 'Opening a review…' : 'Open a review of these changes'}
        </button>
        {data.uncommittedFiles ? (
          <span className="muted small" data-testid="uncommitted-note">
            {data.uncommittedFiles} file{data.uncommittedFiles === 1 ? ' is' : 's are'} not committed on the branch: a review covers only its commits.
          </span>
        ) : null}
        {review.isError ? (
          <span className="error" role="alert">
            {errorMessage(review.error)}
          </span>
        ) : null}
      </div>
      <p className="muted small changes-scope">
        <code>{data.branch}</code> {turn ? `turn ${turn}` : <>against base <code>{data.baseSha.slice(0, 10)}</code></>}
      </p>
      {totals.files === 0 ? (
        <Empty title="No changes">{turn ? 'This turn changed nothing in the checkout.' : 'The checkout is as its base: nothing changed yet.'}</Empty>
      ) : (
        <div className="changes-body">
          <FileList files={data.files} selected={shown} onSelect={setSelected} />
          {page.total > page.limit ? <Pager page={page} onOffset={(next) => setOffset(next)} /> : null}
          <div className="changes-diff">{shown ? <FileDiff ws={ws} conversationId={conversationId} changes={data} file={shown} /> : <p className="muted">Choose a file to see its diff.</p>}</div>
        </div>
      )}
    </section>
  );
}

function FileList({ files, selected, onSelect }: { files: ChangedFile[]; selected: Selected | null; onSelect: (file: Selected) => void }) {
  return (
    <ul className="changes-files" aria-label="Changed files">
      {files.map((file) => {
        const active = selected?.path === file.path && selected.oldPath === file.oldPath;
        return (
          <li key={`${file.oldPath ?? ''}\0${file.path}`}>
            <button type="button" className={`changes-file${active ? ' active' : ''}`} aria-pressed={active} data-path={file.path} onClick={() => onSelect({ path: file.path, oldPath: file.oldPath })}>
              <span className={`changes-status changes-status-${file.status}`} title={STATUS_WORD[file.status]} aria-label={STATUS_WORD[file.status]}>
                {STATUS_LETTER[file.status]}
              </span>
              <span className="changes-path">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</span>
              <span className="changes-counts">
                {file.binary ? (
                  'binary'
                ) : (
                  <>
                    <span className="changes-add">+{file.additions}</span> <span className="changes-del">−{file.deletions}</span>
                  </>
                )}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function Pager({ page, onOffset }: { page: ConversationChanges['page']; onOffset: (offset: number) => void }) {
  const last = Math.min(page.offset + page.limit, page.total);
  return (
    <nav className="changes-pager" aria-label="Pages of files">
      <button type="button" className="btn btn-small" disabled={page.offset === 0} onClick={() => onOffset(Math.max(0, page.offset - CHANGES_PAGE))}>
        Previous
      </button>
      <span className="muted small">
        files {page.offset + 1}–{last} of {page.total}
      </span>
      <button type="button" className="btn btn-small" disabled={last >= page.total} onClick={() => onOffset(page.offset + CHANGES_PAGE)}>
        Next
      </button>
    </nav>
  );
}

function formatBytes(size: number | null): string {
  if (size === null) return 'none';
  return size < 1024 ? `${size} bytes` : `${(size / 1024).toFixed(1)} KiB`;
}

function FileDiff({ ws, conversationId, changes, file }: { ws: string; conversationId: string; changes: ConversationChanges; file: Selected }) {
  const listed = changes.files.find((entry) => entry.path === file.path && entry.oldPath === file.oldPath);
  const diff = useChangeDiff(ws, conversationId, listed && !listed.binary ? { from: changes.from, to: changes.to, path: file.path, oldPath: file.oldPath } : null);
  const lines = useMemo(() => parseDiff(diff.data?.diff ?? '')[0]?.lines ?? [], [diff.data?.diff]);
  const language = languageOf(file.path);
  if (!listed) return null;
  const heading = <h3 className="changes-diff-path">{listed.oldPath ? `${listed.oldPath} → ${listed.path}` : listed.path}</h3>;
  if (listed.binary) {
    return (
      <div data-testid="file-diff">
        {heading}
        <p className="changes-binary">
          Binary file {STATUS_WORD[listed.status]}: {formatBytes(listed.sizeBefore)} before, {formatBytes(listed.sizeAfter)} after.
        </p>
      </div>
    );
  }
  if (diff.isPending) return <Loading label="Reading the diff…" />;
  if (diff.isError) return <ErrorState error={diff.error} what="the diff" retry={() => void diff.refetch()} />;
  return (
    <div data-testid="file-diff">
      {heading}
      {diff.data.truncated ? (
        <p className="changes-truncated" role="note">
          This diff is large: only its first part is shown ({diff.data.truncated}).
        </p>
      ) : null}
      {lines.length === 0 ? (
        <p className="muted">{listed.status === 'renamed' ? 'Renamed; the content did not change.' : 'No line changes to show.'}</p>
      ) : (
        <table className="diff-table changes-diff-table">
          <tbody>
            {lines.map((line, index) => (
              <DiffRow key={index} line={line} language={language} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function DiffRow({ line, language }: { line: DiffLine; language: string | null }) {
  const marker = line.kind === 'add' ? '+' : line.kind === 'del' ? '-' : line.kind === 'ctx' ? ' ' : '';
  return (
    <tr className={`diff-line diff-${line.kind}`}>
      <td className="diff-num">{line.oldLine ?? ''}</td>
      <td className="diff-num">{line.newLine ?? ''}</td>
      <td className="diff-text">
        {language && line.kind !== 'hunk' ? (
          // highlight.js escapes the text and adds only its own spans (see highlightLine).
          <pre>
            {marker}
            <code dangerouslySetInnerHTML={{ __html: highlightLine(line.text, language) }} />
          </pre>
        ) : (
          <pre>
            {marker}
            {line.text}
          </pre>
        )}
      </td>
    </tr>
  );
}
