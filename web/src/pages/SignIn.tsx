import { useEffect, useState, type FormEvent } from 'react';
import type { OidcSignInOption } from '@server/schemas/oidc';
import { errorMessage, request } from '../api/client';

/**
 * The provider's sign-in, when the owner set one up (TEAM-1): a plain link, since the flow is a
 * chain of top-level redirects; it comes back to the page the person was on.
 */
function ProviderSignIn() {
  const [option, setOption] = useState<OidcSignInOption | null>(null);
  useEffect(() => {
    let live = true;
    request<OidcSignInOption>('GET', '/api/auth/oidc', undefined, null).then(
      (answer) => live && setOption(answer),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  if (!option?.enabled) return null;
  const returnTo = `${window.location.pathname}${window.location.search}`;
  return (
    <a className="btn btn-primary signin-provider" href={`/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`} data-testid="signin-oidc">
      Sign in with {option.providerName}
    </a>
  );
}

/** Paste the operator token; it is checked against the server before it is kept (localStorage). */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: (token: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const token = value.trim();
    if (!token) {
      setError('Paste the operator token first.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await request('GET', '/api/workspaces', undefined, token);
      onSignedIn(token);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form className="signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Control Center</h1>
        <p className="muted">
          Paste the operator token. It is in <code>&lt;data-dir&gt;/operator-token</code> (by default <code>~/.control-center/operator-token</code>).
        </p>
        {notice ? <div className="notice">{notice}</div> : null}
        <ProviderSignIn />
        <label className="field">
          <span className="field-label">Operator token</span>
          <input
            type="password"
            name="token"
            autoComplete="off"
            autoFocus
            value={value}
            onChange={(event) => setValue(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'signin-error' : undefined}
          />
        </label>
        {error ? (
          <div className="field-error" role="alert" id="signin-error" data-testid="signin-error">
            {error}
          </div>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
