import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { useSpaces } from '../../api/hooks';
import { SettingsNav } from '../../pages/SettingsNav';
import { Empty, ErrorState, FieldError, Loading } from '../../ui/states';
import { ReadOnlyNote } from '../../ui/ReadOnlyNote';
import { useWorkspacePeople, useWorkspaceRole } from '../people/people-hooks';
import { AUDIT_FAMILIES, AUDIT_KINDS, auditKindWord } from './audit-kind-words';
import { downloadAuditJsonLines, useAuditLog, type AuditEntry, type AuditFilterValues } from './audit-hooks';

/** The filter's suggestions: each family (`policy` matches every `policy.…`), then each kind; the code is the value, the words its label. */
const KIND_SUGGESTIONS = [...AUDIT_FAMILIES, ...AUDIT_KINDS];

const NO_FILTERS: AuditFilterValues = { person: '', kind: '', space: '', from: '', to: '' };

function who(entry: AuditEntry): string {
  return entry.actor.kind === 'agent' ? `agent ${entry.actor.name}` : entry.actor.name;
}

/**
 * TEAM-3: Settings → Audit log. Who did what in the workspace, newest first: filter by person, kind,
 * space and time; page back with "Show older"; export what the filters select as JSON Lines. An
 * admin's page (the API answers 403 to members and viewers, shown as such).
 */
export function AuditLogPage({ ws }: { ws: string }) {
  const [filters, setFilters] = useState<AuditFilterValues>(NO_FILTERS);
  const people = useWorkspacePeople(ws);
  const spaces = useSpaces(ws);
  const log = useAuditLog(ws, filters);
  const [exportError, setExportError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const set = (field: keyof AuditFilterValues) => (event: { target: { value: string } }) => setFilters((current) => ({ ...current, [field]: event.target.value }));
  const spaceName = (spaceId: string | null) => (spaceId ? (spaces.data?.spaces.find((space) => space.id === spaceId)?.name ?? spaceId) : '—');
  const entries = log.data?.pages.flatMap((page) => page.entries) ?? [];
  // TEAM-2: the log is the admins'; a member or viewer is told so instead of filters that would answer 403.
  const { role, canAdminister } = useWorkspaceRole(ws);
  if (role !== null && !canAdminister) {
    return (
      <main className="page" data-testid="audit-page">
        <SettingsNav ws={ws} active="audit" />
        <h2>Audit log</h2>
        <ReadOnlyNote role={role} needs="admin" what="reading the audit log" />
      </main>
    );
  }

  return (
    <main className="page" data-testid="audit-page">
      <SettingsNav ws={ws} active="audit" />
      <h2>Audit log</h2>
      <p className="small muted">Every consequential act in this workspace — approvals, plan and orchestration decisions, policy and settings changes, roles, invitations, tokens — with who did it and when. Key values are never recorded.</p>
      <form className="form-row" aria-label="Audit log filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Person{' '}
          <select aria-label="Person" value={filters.person} onChange={set('person')}>
            <option value="">anyone</option>
            {people.data?.people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind <input aria-label="Kind" list="audit-kinds" value={filters.kind} placeholder="any, or e.g. policy" onChange={set('kind')} />
          <datalist id="audit-kinds">
            {KIND_SUGGESTIONS.map((kind) => (
              <option key={kind} value={kind} label={auditKindWord(kind)} />
            ))}
          </datalist>
        </label>
        <label>
          Space{' '}
          <select aria-label="Space" value={filters.space} onChange={set('space')}>
            <option value="">any</option>
            {spaces.data?.spaces.map((space) => (
              <option key={space.id} value={space.id}>
                {space.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          From <input aria-label="From" type="datetime-local" value={filters.from} onChange={set('from')} />
        </label>
        <label>
          To <input aria-label="To" type="datetime-local" value={filters.to} onChange={set('to')} />
        </label>
        <button
          type="button"
          className="btn"
          disabled={exporting}
          onClick={() => {
            setExporting(true);
            setExportError(null);
            downloadAuditJsonLines(ws, filters)
              .catch((error: unknown) => setExportError(errorMessage(error)))
              .finally(() => setExporting(false));
          }}
        >
          Export JSON Lines
        </button>
      </form>
      <FieldError message={exportError} />
      {log.isPending ? (
        <Loading />
      ) : log.isError ? (
        <ErrorState error={log.error} what="The audit log" retry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <Empty title="Nothing recorded matches these filters." />
      ) : (
        <>
          <table className="table" data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Kind</th>
                <th scope="col">What</th>
                <th scope="col">Space</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id} data-kind={entry.kind}>
                  <td className="muted" data-label="When">
                    <time dateTime={entry.createdAt}>{new Date(entry.createdAt).toLocaleString()}</time>
                  </td>
                  <td data-label="Who">{who(entry)}</td>
                  {/* Words on the screen; the code (what the Kind filter and the export use) on hover. */}
                  <td data-label="Kind" title={entry.kind}>
                    {auditKindWord(entry.kind)}
                  </td>
                  <td data-label="What">{entry.summary}</td>
                  <td className="muted" data-label="Space">{spaceName(entry.spaceId)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {log.hasNextPage ? (
            <button type="button" className="btn" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
              Show older
            </button>
          ) : null}
        </>
      )}
    </main>
  );
}
