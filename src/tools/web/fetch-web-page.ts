import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { readCappedBody, type CappedBody } from '../../llm/read-capped-body.js';
import { blockedAddressReason } from './blocked-address.js';

/** TOOL-1's caps: bytes read (after decompression), the whole fetch's time across hops, and the hops. */
export interface WebFetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_WEB_FETCH_LIMITS: WebFetchLimits = { maxBytes: 5 * 1024 * 1024, timeoutMs: 30_000, maxRedirects: 5 };

/** The policy's answer for one hop: may this URL's host be reached, and does a rule name it exactly? */
export type HopDecision = { allowed: true; hostNamedByRule: boolean } | { allowed: false; reason: string };

/** One resolved address, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (production: the system resolver, once per hop). */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolveHost: ResolveHost = (host) => dnsLookup(host, { all: true, verbatim: true });

export interface FetchWebPageOptions {
  /** Asked for every hop, the first included; a redirect to a host the rules deny or ask about stops there. */
  decideHop: (url: URL, hop: number) => Promise<HopDecision>;
  limits?: Partial<WebFetchLimits>;
  signal: AbortSignal;
  resolveHost?: ResolveHost;
}

/** Why a fetch stopped without a page (each one a clear sentence for the model). */
export type WebFetchRefusal = 'url' | 'policy' | 'address' | 'redirects' | 'size' | 'timeout' | 'contentType' | 'network' | 'cancelled';

export type WebFetchOutcome =
  | {
      ok: true;
      url: string;
      status: number;
      contentType: string;
      body: Buffer;
      /** The URLs followed before the final one. */
      redirects: string[];
      /** The address the final hop connected to (one of those checked). */
      address: string;
    }
  | { ok: false; refusal: WebFetchRefusal; reason: string; redirects: string[] };

/** Content types the tool reads: text, HTML, JSON and XML (TOOL-1); anything else is refused. */
export function isReadableContentType(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    mediaType === 'application/json' ||
    mediaType.endsWith('+json') ||
    mediaType === 'application/xml' ||
    mediaType.endsWith('+xml') ||
    mediaType === 'application/xhtml+xml' ||
    mediaType === 'application/javascript' ||
    mediaType === 'application/ecmascript'
  );
}

class FetchStop extends Error {
  constructor(
    readonly refusal: WebFetchRefusal,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Resolves a hop's host once and checks every address it has (TOOL-1). A name with one blocked
 * address among public ones is refused: the resolver could hand out either, so a rebinding name never
 * gets its chance. The addresses returned are the only ones the connection may use — there is no
 * second lookup.
 */
async function pinAddresses(url: URL, hostNamedByRule: boolean, resolveHost: ResolveHost): Promise<ResolvedAddress[]> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await resolveHost(host);
    } catch (error) {
      throw new FetchStop('network', `Could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
    }
    if (addresses.length === 0) throw new FetchStop('network', `Could not resolve ${host}: no address.`);
  }
  if (!hostNamedByRule) {
    for (const { address } of addresses) {
      const blocked = blockedAddressReason(address);
      if (blocked) {
        throw new FetchStop(
          'address',
          `Refused: ${host} resolves to ${blocked}. web_fetch reaches only public addresses unless a policy rule names this exact host (domain ${host}).`,
        );
      }
    }
  }
  return addresses;
}

/**
 * A lookup that answers every connection attempt with the addresses already checked (no re-resolve).
 * All of them when asked for all, so a name whose first address does not answer (`localhost` as ::1
 * before 127.0.0.1) still connects — to a checked address.
 */
export function pinnedLookup(pinned: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, pinned);
    else callback(null, pinned[0]!.address, pinned[0]!.family);
  };
}

function send(url: URL, pinned: ResolvedAddress[], signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'GET',
        signal,
        lookup: pinnedLookup(pinned),
        // One socket per hop: a pooled socket could belong to another address.
        agent: false,
        headers: {
          'user-agent': 'ControlCenter-web_fetch/1.0',
          accept: 'text/html, application/xhtml+xml, text/*;q=0.9, application/json;q=0.9, application/xml;q=0.8, */*;q=0.1',
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(createGunzip());
  if (encoding === 'deflate') return response.pipe(createInflate());
  if (encoding === 'br') return response.pipe(createBrotliDecompress());
  return response;
}

/** Reads the body, stopping (and dropping the connection) as soon as it passes the cap. */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw new FetchStop('size', `Refused: the page is ${declared} bytes, over the ${maxBytes}-byte cap.`);
  }
  let read: CappedBody;
  try {
    read = await readCappedBody(decoded(response), maxBytes);
  } catch (error) {
    response.destroy();
    throw error;
  }
  if (read.overCap) {
    // The reader released the decompressor; the connection under it is dropped here.
    response.destroy();
    throw new FetchStop('size', `Refused: the page passed the ${maxBytes}-byte cap; it was not read further.`);
  }
  return read.bytes;
}

function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/**
 * Fetches a URL for `web_fetch` (TOOL-1): http(s) only; per hop the policy decides the host, the
 * host is resolved once and every address checked, the connection goes to that address; redirects
 * are followed by hand (GET), each hop decided and checked again; one deadline covers all hops; the
 * content type is checked before the body is read, and the body is read up to the size cap.
 */
export async function fetchWebPage(startUrl: string, options: FetchWebPageOptions): Promise<WebFetchOutcome> {
  const limits = { ...DEFAULT_WEB_FETCH_LIMITS, ...options.limits };
  const resolveHost = options.resolveHost ?? systemResolveHost;
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const redirects: string[] = [];
  let url: URL;
  try {
    url = new URL(startUrl);
  } catch {
    return { ok: false, refusal: 'url', reason: `Refused: ${JSON.stringify(startUrl)} is not a URL.`, redirects };
  }
  try {
    for (let hop = 0; ; hop += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchStop('url', `Refused: ${url.protocol} URLs are not fetched; http and https only.`);
      if (url.username || url.password) throw new FetchStop('url', 'Refused: URLs with a user name or password are not fetched.');
      const decision = await options.decideHop(url, hop);
      if (!decision.allowed) throw new FetchStop('policy', decision.reason);
      const pinned = await pinAddresses(url, decision.hostNamedByRule, resolveHost);
      const response = await send(url, pinned, signal);
      const connectedTo = response.socket?.remoteAddress ?? pinned[0]!.address;
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        if (redirects.length >= limits.maxRedirects) throw new FetchStop('redirects', `Refused: more than ${limits.maxRedirects} redirects (last to ${location}).`);
        redirects.push(url.href);
        try {
          url = new URL(location, url);
        } catch {
          throw new FetchStop('url', `Refused: the redirect to ${JSON.stringify(location)} is not a URL.`);
        }
        continue;
      }
      const contentType = String(response.headers['content-type'] ?? '');
      const mediaType = mediaTypeOf(contentType);
      if (mediaType.length > 0 && !isReadableContentType(mediaType)) {
        response.destroy();
        throw new FetchStop('contentType', `Refused: the content type is ${mediaType}; web_fetch reads text, HTML, JSON and XML only.`);
      }
      const body = await readCapped(response, limits.maxBytes);
      // No declared type: read as plain text only when it looks like text (no NUL byte at the start).
      if (mediaType.length === 0 && body.subarray(0, 1024).includes(0)) {
        throw new FetchStop('contentType', 'Refused: the response has no content type and looks binary; web_fetch reads text, HTML, JSON and XML only.');
      }
      return { ok: true, url: url.href, status, contentType: contentType || 'text/plain', body, redirects, address: connectedTo };
    }
  } catch (error) {
    if (error instanceof FetchStop) return { ok: false, refusal: error.refusal, reason: error.message, redirects };
    if (deadline.aborted) return { ok: false, refusal: 'timeout', reason: `Refused: the fetch took longer than ${limits.timeoutMs} ms (all hops together); it was stopped.`, redirects };
    if (options.signal.aborted) return { ok: false, refusal: 'cancelled', reason: 'Stopped: the run was cancelled.', redirects };
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, refusal: 'network', reason: `The fetch of ${url!.href} failed: ${code ?? (error as Error).message}.`, redirects };
  }
}
