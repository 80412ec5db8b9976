import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ValidationError } from '../../errors/index.js';
import { blockedAddressReason } from '../../tools/web/blocked-address.js';

/**
 * Checks a URL the server will POST to on a person's behalf (a webhook, a push endpoint): http(s)
 * only, no credentials in it (they would sit in the delivery log and in every request line), and —
 * unless the owner allowed it — no loopback, private, link-local or otherwise internal address, so a
 * channel cannot be used to reach the server's own network (the same ranges web_fetch refuses).
 * Every address the host resolves to is checked. Throws a 400 naming `field`.
 */
export async function checkNotificationTarget(raw: string, field: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError(field, `must be an http(s) URL, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new ValidationError(field, 'must not carry credentials (user:password@); use the signing secret instead');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch (error) {
      throw new ValidationError(field, `${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) throw new ValidationError(field, `refused: ${host} is not a public address (${reason}); the owner may allow private targets in the notification settings`);
  }
  return url;
}
