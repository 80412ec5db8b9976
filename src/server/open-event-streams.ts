import type { ServerResponse } from 'node:http';

/** The last event a stream gets when its process stops: the client reconnects at once, elsewhere. */
export const SERVER_RESTARTING_EVENT = 'server.restarting';

/** How long a stopping process waits for its streams' last bytes to leave before it drops them. */
const FLUSH_WAIT_MS = 2_000;

/**
 * The live event streams a process holds open, so a stop (SIGTERM) can end them politely: each is
 * sent `event: server.restarting` and ended, and the web app reconnects at once — to another API
 * process behind the proxy — resuming from its last event id, instead of seeing the connection
 * drop and waiting out its retry delay. A stream that opens while the process stops gets the same
 * at once.
 */
export class OpenEventStreams {
  private readonly open = new Set<ServerResponse>();
  private stopping = false;

  /** Registers an open stream; returns what forgets it (call when the stream closes). */
  add(response: ServerResponse): () => void {
    if (this.stopping) {
      endPolitely(response);
      return () => undefined;
    }
    this.open.add(response);
    return () => this.open.delete(response);
  }

  /** Sends every open stream the restart event, ends it, and waits (bounded) until each has closed. */
  async closeAll(): Promise<void> {
    this.stopping = true;
    const streams = [...this.open];
    this.open.clear();
    await Promise.all(streams.map((response) => closed(response, FLUSH_WAIT_MS)));
  }
}

function endPolitely(response: ServerResponse): void {
  if (response.writableEnded) return;
  response.end(`event: ${SERVER_RESTARTING_EVENT}\ndata: ${JSON.stringify({ reconnect: true })}\n\n`);
}

/** Ends the stream politely and resolves once its bytes are out (or the socket went), at most after `waitMs`. */
function closed(response: ServerResponse, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, waitMs);
    timer.unref();
    function done(): void {
      clearTimeout(timer);
      response.off('finish', done);
      response.off('close', done);
      resolve();
    }
    response.once('finish', done);
    response.once('close', done);
    endPolitely(response);
    if (response.writableFinished || response.destroyed) done();
  });
}
