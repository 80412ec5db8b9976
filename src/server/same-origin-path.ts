/**
 * Where a sign-in may land afterwards: a path on this server, nothing else. `returnTo` arrives in a
 * URL anyone can craft, so an absolute URL, a scheme-relative `//evil.example`, a backslash (which
 * browsers read as a slash: `/\evil.example`) or a control character would make the sign-in an open
 * redirect. Null when the value is not such a path.
 */
export function sameOriginPath(value: string): string | null {
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return null;
  // eslint-disable-next-line no-control-regex -- control characters (tab, newline) are stripped by URL parsers and would hide a `//`
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  const base = new URL('http://this-server.invalid');
  const resolved = new URL(value, base);
  if (resolved.origin !== base.origin) return null;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
