import type { ReactNode } from 'react';
import { errorMessage, isMissingRoute } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

/** An error with the server's message; a route the server does not have yet says so plainly. */
export function ErrorState({ error, what, retry }: { error: unknown; what?: string; retry?: () => void }) {
  const missing = isMissingRoute(error);
  return (
    <div className={`state state-error${missing ? ' state-missing' : ''}`} role="alert">
      <strong>{missing ? `${what ?? 'This feature'} is not available on this server yet` : `Could not load ${what ?? 'this'}`}</strong>
      <div className="muted">{errorMessage(error)}</div>
      {retry && !missing ? (
        <button type="button" className="btn btn-small" onClick={retry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

/** Inline error line under a field or a form. */
export function FieldError({ message, id }: { message: string | null | undefined; id?: string }) {
  if (!message) return null;
  return (
    <div className="field-error" role="alert" id={id}>
      {message}
    </div>
  );
}
