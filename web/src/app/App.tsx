import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { getToken, onUnauthorized, request, setToken } from '../api/client';
import { Shell } from './Shell';
import { SignIn } from '../pages/SignIn';
import { SharedConversationPage } from '../pages/SharedConversationPage';
import { match, useLocation } from './router';

/** Stands in for the token when the browser signed in through the one-time link (an HttpOnly cookie the page cannot read). */
const COOKIE_SESSION = 'cookie-session';

/** Sign-in gate: without a token or a sign-in cookie (or after a 401) the sign-in screen shows. */
export function App() {
  // RLY-3: a share link opens without signing in; the token in the link is its only credential.
  const shareToken = match('/share/:token', useLocation().path)?.token ?? null;
  return shareToken !== null ? <SharedConversationPage token={shareToken} /> : <SignedInApp />;
}

function SignedInApp() {
  const client = useQueryClient();
  const [token, setTokenState] = useState<string | null>(() => getToken());
  const [checked, setChecked] = useState(() => getToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  // Opened from the link `serve` prints, the browser holds a session cookie instead of a token.
  useEffect(() => {
    if (checked) return;
    // Plain fetch, not request(): a 401 here only means "not signed in yet", not "signed out".
    fetch('/api/auth/session').then(
      (response) => {
        if (response.ok) setTokenState(COOKIE_SESSION);
        setChecked(true);
      },
      () => setChecked(true),
    );
  }, [checked]);

  useEffect(
    () =>
      onUnauthorized((error) => {
        setToken(null);
        client.clear();
        setTokenState(null);
        setNotice(`Signed out: ${error.message}`);
      }),
    [client],
  );

  if (!checked) return null;
  if (!token) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(value) => {
          setToken(value);
          setNotice(null);
          setTokenState(value);
        }}
      />
    );
  }
  return (
    <Shell
      token={token}
      onSignOut={() => {
        if (token === COOKIE_SESSION) void request('POST', '/api/auth/sign-out', {}, null).catch(() => undefined);
        setToken(null);
        client.clear();
        setTokenState(null);
        setNotice(null);
      }}
    />
  );
}
