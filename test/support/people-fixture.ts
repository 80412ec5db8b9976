import type { TestServer } from './test-server.js';

/** A person made the way a colleague joins: invited by the owner, accepted through the link, given a token. */
export interface InvitedPerson {
  personId: string;
  name: string;
  /** A personal API token (full, or read-only when asked for). */
  token: string;
  /** The browser session cookie the invitation opened (`cc_session=…`). */
  cookie: string;
}

/** Posts an invitation's form as a browser would (form-encoded, same Origin); returns the raw response. */
export async function acceptInvitation(server: TestServer, url: string, fields: { name: string; email?: string }): Promise<Response> {
  const code = new URL(url).searchParams.get('code')!;
  return fetch(`${server.url}/auth/join`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
    body: new URLSearchParams({ code, name: fields.name, ...(fields.email ? { email: fields.email } : {}) }).toString(),
  });
}

/** The `cc_session=…` pair of a response's Set-Cookie. */
export function sessionCookieOf(response: Response): string {
  const header = response.headers.get('set-cookie') ?? '';
  const match = /cc_session=[^;]+/.exec(header);
  if (!match) throw new Error(`no session cookie in ${response.status} ${header}`);
  return match[0];
}

/** Calls the API with a person's bearer token. */
export async function asPerson(server: TestServer, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Invites `name` into a workspace with `role` (as the owner), accepts, and makes them a token. */
export async function invitePerson(server: TestServer, workspaceId: string, role: 'admin' | 'member' | 'viewer', name: string, options: { readOnlyToken?: boolean } = {}): Promise<InvitedPerson> {
  const invitation = await server.api('POST', `/api/workspaces/${workspaceId}/invitations`, { role });
  if (invitation.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invitation.body)}`);
  const accepted = await acceptInvitation(server, invitation.body.url, { name });
  if (accepted.status !== 303) throw new Error(`accept failed: ${accepted.status} ${await accepted.text()}`);
  const cookie = sessionCookieOf(accepted);
  const me = (await (await fetch(`${server.url}/api/people/me`, { headers: { cookie } })).json()) as { id: string };
  const created = await fetch(`${server.url}/api/people/me/tokens`, {
    method: 'POST',
    headers: { cookie, origin: server.url, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cli', readOnly: options.readOnlyToken ?? false }),
  });
  if (created.status !== 201) throw new Error(`token failed: ${created.status} ${await created.text()}`);
  return { personId: me.id, name, token: ((await created.json()) as { token: string }).token, cookie };
}
