import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ValidationError } from '../../errors/index.js';
import { blockedAddressReason } from '../../tools/web/blocked-address.js';
import type { ResolvedAddress } from '../../tools/web/fetch-web-page.js';

/** A checked target: the URL, and the addresses it was checked at (null when the owner allows any address). */
export interface CheckedTarget {
  url: URL;
  addresses: ResolvedAddress[] | null;
}

/**
 * Checks a URL the server will POST to on a person's behalf (a webhook, a push endpoint): http(s)
 * only, no credentials in it (they would sit in the delivery log and in every request line), and —
 * unless the owner allowed it — no loopback, private, link-local or otherwise internal address, so a
 * channel cannot be used to reach the server's own network (the same ranges web_fetch refuses).
 * Every address the host resolves to is checked, and the request is then sent to those addresses
 * only (no second resolution a rebinding name could answer differently). Throws a 400 naming `field`.
 */
export async function checkNotificationTarget(raw: string, field: string, allowPrivate: boolean): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError(field, `must be an http(s) URL, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new ValidationError(field, 'must not carry credentials (user:password@); use the signing secret instead');
  if (allowPrivate) return { url, addresses: null };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new ValidationError(field, `${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (addresses.length === 0) throw new ValidationError(field, `${host} has no address`);
  for (const { address } of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) throw new ValidationError(field, `refused: ${host} is not a public address (${reason}); the owner may allow private targets in the notification settings`);
  }
  return { url, addresses };
}
