import { connect } from 'node:net';
import { unreachableCode } from './model-proxy-error-answers.js';

/** Long enough for a slow network's handshake; a probe that times out says nothing and refuses nothing. */
const PROBE_TIMEOUT_MS = 2_000;
/** A base URL that answered lately is not probed again for each run. */
const REMEMBER_REACHED_MS = 60_000;

/**
 * TRUTH-4: whether anything listens at a base URL, found with one TCP connect before a runner is
 * started, so a wrong URL fails the run in milliseconds instead of after the runner's start-up and
 * retries. Only a definite answer counts (refused, no such host, no route): a timeout or any other
 * error leaves the decision to the model call itself.
 */
export class BaseUrlProbe {
  private readonly reachedAt = new Map<string, number>();

  /** The connect error's code when nothing can be reached at `baseUrl`, else null. */
  async unreachable(baseUrl: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      return 'ERR_INVALID_URL';
    }
    const origin = url.origin;
    const reached = this.reachedAt.get(origin);
    if (reached !== undefined && Date.now() - reached < REMEMBER_REACHED_MS) return null;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const code = await new Promise<string | null>((resolve) => {
      const socket = connect({ host, port });
      const done = (result: string | null) => {
        socket.destroy();
        resolve(result);
      };
      socket.setTimeout(PROBE_TIMEOUT_MS, () => done(null));
      socket.once('connect', () => {
        this.reachedAt.set(origin, Date.now());
        done(null);
      });
      socket.once('error', (error) => done(unreachableCode(error)));
    });
    return code;
  }
}
