/**
 * What a sidebar row tells at a glance: a pulsing dot while a run is running there, and a count of
 * the decisions waiting for you there (approvals, questions, plans…), in a different shape and colour
 * so the two are never confused. Both say it in words to screen readers (hidden text) and on hover.
 */
export function SidebarMarks({ running, waiting }: { running: boolean; waiting: number }) {
  return (
    <>
      {running ? (
        <span className="sidebar-mark-running" data-testid="mark-running" title="A run is running">
          <span aria-hidden="true">●</span>
          <span className="sr-only">A run is running</span>
        </span>
      ) : null}
      {waiting > 0 ? (
        <span className="sidebar-mark-waiting" data-testid="mark-waiting" title={`${waiting} waiting for you in the Inbox`}>
          <span aria-hidden="true">{waiting}</span>
          <span className="sr-only">{`, ${waiting} waiting for you`}</span>
        </span>
      ) : null}
    </>
  );
}
