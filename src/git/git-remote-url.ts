import { isAbsolute, resolve } from 'node:path';
import { ALLOWED_PROTOCOLS } from './git-hardening.js';

/** A remote URL the server may fetch from or push to, or why not. */
export type RemoteUrlCheck =
  | {
      ok: true;
      /** `file` for local paths and `file://`, else the URL's scheme (`ssh` for scp-like `host:path`). */
      transport: string;
      /** The URL git should be given: a relative local path resolved against the repository. */
      forwardUrl: string;
    }
  | { ok: false; reason: string };

const MAX_LENGTH = 4096;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** git's `<transport>::<address>` syntax: runs the remote helper `git-remote-<transport>` (`ext::` runs a shell command). */
const HELPER_SYNTAX = /^[A-Za-z][A-Za-z0-9+.-]*::/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/** Scheme spellings git maps to its built-in transports. */
const SCHEME_TRANSPORT: Readonly<Record<string, string>> = {
  file: 'file',
  git: 'git',
  http: 'http',
  https: 'https',
  ssh: 'ssh',
  'git+ssh': 'ssh',
  'ssh+git': 'ssh',
};

function refuse(reason: string): RemoteUrlCheck {
  return { ok: false, reason };
}

function decoded(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** `user@host:port` (or `[v6]:port`): neither the user nor the host may look like an option to ssh. */
function authorityProblem(authority: string): string | null {
  const plain = decoded(authority);
  if (plain === null) return 'has malformed percent-encoding in its host part';
  const at = plain.lastIndexOf('@');
  const user = at === -1 ? '' : plain.slice(0, at);
  const host = at === -1 ? plain : plain.slice(at + 1);
  if (user.startsWith('-')) return 'has a user name starting with "-" (ssh would read it as an option)';
  if (host === '' || host.startsWith(':')) return 'has no host';
  if (host.replace(/^\[/, '').startsWith('-')) return 'has a host starting with "-" (ssh would read it as an option)';
  if (/\s/.test(plain)) return 'has white space in its host part';
  return null;
}

/**
 * Decides whether the server may hand `url` to git as a remote (SEC-2). Refused: option-shaped values
 * (leading `-`), control characters, remote-helper syntax (`ext::…`, `fd::…`, any `<x>::`), schemes
 * other than file/git/http/https/ssh (an unknown `scheme://` also runs a helper), and user or host
 * parts starting with `-` (ssh options such as `-oProxyCommand=`). Accepted local paths are resolved
 * against `baseDir` when relative, because the server's git does not run where the agent's did.
 */
export function checkRemoteUrl(url: string, baseDir: string): RemoteUrlCheck {
  if (typeof url !== 'string' || url.trim() === '') return refuse('is empty');
  if (url.length > MAX_LENGTH) return refuse(`is longer than ${MAX_LENGTH} characters`);
  if (CONTROL.test(url)) return refuse('contains a control character');
  if (url.startsWith('-')) return refuse('starts with "-" (git would read it as an option)');
  if (HELPER_SYNTAX.test(url)) return refuse(`uses the remote-helper syntax "${url.slice(0, url.indexOf('::'))}::", which runs a program; only ${ALLOWED_PROTOCOLS.serverOwned.join(', ')} are allowed`);
  const scheme = SCHEME.exec(url);
  if (scheme) {
    const transport = SCHEME_TRANSPORT[scheme[1]!.toLowerCase()];
    if (!transport) return refuse(`uses the transport "${scheme[1]}", which is not one of ${ALLOWED_PROTOCOLS.serverOwned.join(', ')}`);
    if (transport === 'file') return { ok: true, transport, forwardUrl: url };
    const rest = url.slice(scheme[0].length);
    const problem = authorityProblem(rest.split('/')[0]!);
    return problem ? refuse(problem) : { ok: true, transport, forwardUrl: url };
  }
  // git's rule: a colon before the first slash makes `[user@]host:path` an ssh address.
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon !== -1 && (slash === -1 || colon < slash)) {
    const authority = url.startsWith('[') && url.includes(']:') ? url.slice(0, url.indexOf(']:') + 1) : url.slice(0, colon);
    const problem = authorityProblem(authority);
    return problem ? refuse(problem) : { ok: true, transport: 'ssh', forwardUrl: url };
  }
  return { ok: true, transport: 'file', forwardUrl: isAbsolute(url) ? url : resolve(baseDir, url) };
}
