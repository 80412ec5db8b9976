import { useHonestyMatrix } from '../api/hooks';
import { MODE_LABELS } from '../app/picker';
import type { HonestyRow } from '../api/types';
import { Empty, ErrorState, Loading } from '../ui/states';
import { TechnicalText } from '../ui/TechnicalText';

// A capability that does not exist on a transport is "n/a", never "Not enforced": nothing is missing (TRUTH-2).
const LEVEL_LABELS: Record<HonestyRow['level'], string> = { enforced: 'Enforced', partial: 'Partial', none: 'Not enforced', notApplicable: 'n/a' };

/** ADP-1: per adapter (and mode), what the Control Center can enforce — shown exactly as the server states it. */
export function HonestyPage() {
  const matrix = useHonestyMatrix();
  return (
    // The page scrolls as a whole and holds nothing focusable: tabIndex lets a keyboard user scroll it.
    <main className="page" aria-labelledby="honesty-title" tabIndex={0}>
      <h2 id="honesty-title">Honesty matrix</h2>
      <p className="muted small">
        What each transport lets the Control Center enforce. Rows come from the server; nothing here is claimed by the UI itself.
      </p>
      {matrix.isPending ? (
        <Loading label="Loading the matrix…" />
      ) : matrix.isError ? (
        <ErrorState error={matrix.error} what="The honesty matrix" retry={() => void matrix.refetch()} />
      ) : !matrix.data?.adapters?.length ? (
        <Empty title="No adapters reported">The server returned an empty matrix.</Empty>
      ) : (
        <div className="honesty" data-testid="honesty-matrix">
          {matrix.data.adapters.map((adapter) => (
            <section key={adapter.id} className="card" aria-labelledby={`adapter-${adapter.id}`}>
              <h3 id={`adapter-${adapter.id}`}>
                {adapter.label} <code className="muted small">{adapter.id}</code>
              </h3>
              {adapter.rows.length === 0 ? (
                <Empty title="No rows" />
              ) : (
                <table className="table">
                  <thead>
                    <tr>
                      <th>Capability</th>
                      <th>Mode</th>
                      <th>Level</th>
                      <th>Detail</th>
                    </tr>
                  </thead>
                  <tbody>
                    {adapter.rows.map((row, index) => (
                      <tr key={`${row.capability}-${row.mode ?? ''}-${index}`}>
                        <td data-label="Capability">{row.capability}</td>
                        <td data-label="Mode">{row.mode ? MODE_LABELS[row.mode] : <span className="muted">all</span>}</td>
                        <td data-label="Level">
                          <span className={`level level-${row.level}`}>{LEVEL_LABELS[row.level] ?? row.level}</span>
                        </td>
                        <td className="small" data-label="Detail">
                          <TechnicalText text={row.detail} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          ))}
        </div>
      )}
    </main>
  );
}
