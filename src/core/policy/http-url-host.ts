import { normalizeHost } from './domain-pattern.js';

/**
 * TOOL-1: the host of an http(s) URL as domain rules see it — parsed by the WHATWG URL parser, the
 * one the fetch uses too, so `http://2130706433/` and `http://0x7f.1/` are decided as `127.0.0.1`,
 * never as the spelling the agent chose. Undefined for anything that is not an http(s) URL.
 */
export function httpUrlHost(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  return parsed.hostname.length > 0 ? normalizeHost(parsed.hostname) : undefined;
}
