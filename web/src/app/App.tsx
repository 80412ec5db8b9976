import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { getToken, onUnauthorized, setToken } from '../api/client';
import { Shell } from './Shell';
import { SignIn } from '../pages/SignIn';

/** Sign-in gate: without a token (or after a 401) the sign-in screen shows. */
export function App() {
  const client = useQueryClient();
  const [token, setTokenState] = useState<string | null>(() => getToken());
  const [notice, setNotice] = useState<string | null>(null);

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
        setToken(null);
        client.clear();
        setTokenState(null);
        setNotice(null);
      }}
    />
  );
}
