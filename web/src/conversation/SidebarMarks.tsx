/**
 * What a sidebar row tells at a glance: a pulsing dot while a run is running there, and a count of
 * the decisions waiting for you there (approvals, questions, plans…), in a different shape and colour
 * so the two are never confused. Both carry words for screen readers and on hover.
 */
export function SidebarMarks({ running, waiting }: { running: boolean; waiting: number }) {
  return (
    <>
      {running ? (
        <span className="sidebar-mark-running" data-testid="mark-running" role="img" aria-label="A run is running" title="A run is running">
          ●
        </span>
      ) : null}
      {waiting > 0 ? (
        <span className="sidebar-mark-waiting" data-testid="mark-waiting" aria-label={`${waiting} waiting for you`} title={`${waiting} waiting for you in the Inbox`}>
          {waiting}
        </span>
      ) : null}
    </>
  );
}
