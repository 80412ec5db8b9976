import { paths } from '../app/router';
import { Link } from '../ui/link';

/** A path the app has no page for (UI): says so, with the way back, instead of silently redirecting. */
export function NotFoundPage({ ws, path }: { ws: string | null; path: string }) {
  return (
    <main className="page">
      <div className="not-found" data-testid="not-found">
        <h2>Page not found</h2>
        <p className="muted">
          There is no page at <code>{path}</code>. It may have moved, or the link may be mistyped.
        </p>
        {ws ? <Link to={paths.home(ws)}>Go to conversations</Link> : <Link to="/">Go to the start page</Link>}
      </div>
    </main>
  );
}
