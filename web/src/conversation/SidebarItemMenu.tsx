import { useRef } from 'react';

/**
 * The "⋯" menu of a sidebar row: Rename, and Archive or Unarchive. A native disclosure, so it opens
 * with the keyboard and is announced; it closes after a choice.
 */
export function SidebarItemMenu({ name, archived, onRename, onArchive }: { name: string; archived: boolean; onRename: () => void; onArchive: (archived: boolean) => void }) {
  const details = useRef<HTMLDetailsElement>(null);
  const choose = (action: () => void) => {
    details.current?.removeAttribute('open');
    action();
  };
  return (
    <details className="sidebar-menu" ref={details}>
      <summary aria-label={`Actions for ${name}`} title="Rename or archive">
        ⋯
      </summary>
      <div className="sidebar-menu-items">
        <button type="button" className="btn btn-ghost btn-small" onClick={() => choose(onRename)}>
          Rename
        </button>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => choose(() => onArchive(!archived))}>
          {archived ? 'Unarchive' : 'Archive'}
        </button>
      </div>
    </details>
  );
}
