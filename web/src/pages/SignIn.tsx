import { useState, type FormEvent } from 'react';
import { errorMessage, request } from '../api/client';

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
