import { WORKSPACE_EVENT_TYPES } from '@server/schemas/event-types';
import { api } from './client';
import type { WorkspaceEvent } from './types';

/**
 * One live connection per browser and workspace, shared by the browser's tabs.
 *
 * Browsers allow six HTTP/1.1 connections per host: with one event stream per tab, the seventh tab's
 * requests waited for a free connection and stayed blank. So the tabs of a workspace elect a leader
 * through the Web Locks API (the lock is released by the browser when its tab closes, crashes or is
 * discarded); only the leader holds the EventSource, and it rebroadcasts every event over a
 * BroadcastChannel. When the leader goes, the next tab in the lock's queue takes over and resumes the
 * stream from the last event id the tabs saw, so nothing is missed.
 *
 * Gaps: each relayed event carries the id of the event before it on the stream. A tab whose last seen
 * id is not that one missed something (it was frozen, or joined the chain late) and refetches what it
 * shows; so does every tab when the server says a resume could not be complete (`stream.resumed`).
 * A live view never trusts a cache that may have missed an event.
 *
 * Where BroadcastChannel or Web Locks are missing, every tab is its own leader: one stream per tab.
 */

export type StreamStatus = 'connecting' | 'open' | 'error';
export type LiveRole = 'leader' | 'follower';

export interface LiveConnectionHandlers {
  /** One event of the workspace, once per tab, in stream order. */
  onEvent(event: WorkspaceEvent): void;
  /** Events were missed: refetch everything shown. */
  onResync(): void;
  onStatus(status: StreamStatus): void;
  /** Which part this tab plays, and the id of the last event it saw (for the status badge and tests). */
  onRole?(role: LiveRole, lastEventId: number | null): void;
}

/** What tabs say to each other on the workspace's channel. */
type ChannelMessage =
  | { kind: 'event'; id: number; previous: number | null; event: WorkspaceEvent }
  | { kind: 'resync' }
  | { kind: 'status'; status: StreamStatus; lastEventId: number | null }
  | { kind: 'hello' };

/** How long to wait before reopening a failed stream (with a fresh ticket). */
const RECONNECT_MS = 2000;

function sharingSupported(): boolean {
  return typeof BroadcastChannel !== 'undefined' && typeof navigator !== 'undefined' && 'locks' in navigator && Boolean(navigator.locks);
}

/** Opens (or joins) the workspace's live connection; returns the closer. */
export function openSharedLiveConnection(ws: string, handlers: LiveConnectionHandlers): () => void {
  const shared = sharingSupported();
  const name = `cc-live-${ws}`;
  /** The id of the last event this tab saw (its own stream's or relayed); where a new leader resumes. */
  let lastEventId: number | null = null;
  let role: LiveRole = 'follower';
  let channel: BroadcastChannel | null = null;
  let lockRequest: AbortController | null = null;
  let releaseLock: (() => void) | null = null;
  let stopStream: (() => void) | null = null;
  let running = false;
  let currentStatus: StreamStatus = 'connecting';
  /** Whether this tab, as a follower, has heard the leader's position once. */
  let joined = false;

  const reportRole = () => handlers.onRole?.(role, lastEventId);
  const post = (message: ChannelMessage) => channel?.postMessage(message);

  const receive = (id: number, previous: number | null, event: WorkspaceEvent) => {
    if (lastEventId !== null && id <= lastEventId) return; // already seen (a resume overlapping the chain)
    // A stream that began afresh (previous null) cannot prove it follows on from what this tab saw.
    const missed = lastEventId !== null && previous !== lastEventId;
    lastEventId = id;
    if (missed) handlers.onResync();
    handlers.onEvent(event);
    reportRole();
  };

  const onChannelMessage = (message: MessageEvent<ChannelMessage>) => {
    const data = message.data;
    if (data.kind === 'hello') {
      if (role === 'leader') post({ kind: 'status', status: currentStatus, lastEventId });
    } else if (data.kind === 'status') {
      if (role === 'follower') {
        // A tab that just joined starts its chain where the leader is; what was relayed before it
        // listened may be newer than what it fetched, so it reads its pages again once.
        if (lastEventId === null) lastEventId = data.lastEventId;
        if (!joined) {
          joined = true;
          handlers.onResync();
        }
        handlers.onStatus(data.status);
        reportRole();
      }
    } else if (data.kind === 'resync') {
      handlers.onResync();
    } else if (role === 'follower') {
      receive(data.id, data.previous, data.event);
    }
  };

  const setStatus = (status: StreamStatus) => {
    currentStatus = status;
    handlers.onStatus(status);
    post({ kind: 'status', status, lastEventId });
  };

  const lead = () => {
    role = 'leader';
    reportRole();
    stopStream = openStream(ws, () => lastEventId, {
      onEvent: (id, event) => {
        const previous = lastEventId;
        receive(id, previous, event);
        post({ kind: 'event', id, previous, event });
      },
      onIncompleteResume: () => {
        handlers.onResync();
        post({ kind: 'resync' });
      },
      onStatus: setStatus,
    });
  };

  const start = () => {
    if (running) return;
    running = true;
    role = 'follower';
    handlers.onStatus('connecting');
    if (!shared) {
      lead();
      return;
    }
    channel = new BroadcastChannel(name);
    channel.onmessage = onChannelMessage;
    post({ kind: 'hello' });
    lockRequest = new AbortController();
    navigator.locks
      .request(name, { signal: lockRequest.signal }, () => {
        if (!running) return undefined;
        lead();
        // Held until this tab stops (pagehide, sign-out, workspace switch) or closes.
        return new Promise<void>((resolve) => (releaseLock = resolve));
      })
      .catch(() => undefined); // aborted while waiting in the queue: this tab stopped as a follower
  };

  const stop = () => {
    if (!running) return;
    running = false;
    stopStream?.();
    stopStream = null;
    lockRequest?.abort();
    lockRequest = null;
    releaseLock?.();
    releaseLock = null;
    channel?.close();
    channel = null;
    role = 'follower';
  };

  // A page leaving (or entering the back/forward cache) gives up the stream and the lock at once, so
  // another tab leads and the next page load does not queue behind a held connection.
  const onPageHide = () => stop();
  const onPageShow = (event: PageTransitionEvent) => {
    if (!event.persisted) return;
    start();
    // Frozen in the cache, the page heard nothing meanwhile.
    handlers.onResync();
  };
  window.addEventListener('pagehide', onPageHide);
  window.addEventListener('pageshow', onPageShow);
  start();
  return () => {
    window.removeEventListener('pagehide', onPageHide);
    window.removeEventListener('pageshow', onPageShow);
    stop();
  };
}

interface StreamHandlers {
  onEvent(id: number, event: WorkspaceEvent): void;
  onIncompleteResume(): void;
  onStatus(status: StreamStatus): void;
}

/**
 * The leader's EventSource. The URL carries a single-use ticket fetched with the session just before
 * (never the token), so instead of EventSource's own retry (same URL, used ticket) a failed stream is
 * reopened with a new ticket, resuming after the last event seen (`?lastEventId=`; the server says
 * with `stream.resumed` whether the resume was complete). Returns the closer.
 */
function openStream(ws: string, resumeAfter: () => number | null, handlers: StreamHandlers): () => void {
  let closed = false;
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let everOpened = false;
  const handle = (message: MessageEvent<string>) => {
    let event: WorkspaceEvent;
    try {
      event = JSON.parse(message.data) as WorkspaceEvent;
    } catch {
      return;
    }
    handlers.onEvent(Number(message.lastEventId) || event.sequence, event);
  };
  const connect = async () => {
    handlers.onStatus('connecting');
    let ticket: string;
    try {
      ticket = (await api.post<{ ticket: string }>('/api/auth/sse-ticket')).ticket;
    } catch {
      if (!closed) retry();
      return;
    }
    if (closed) return;
    const after = resumeAfter();
    // A stream reopened without a position to resume from cannot tell what it missed.
    if (after === null && everOpened) handlers.onIncompleteResume();
    const resume = after === null ? '' : `&lastEventId=${after}`;
    source = new EventSource(`/api/workspaces/${encodeURIComponent(ws)}/events?ticket=${encodeURIComponent(ticket)}${resume}`);
    source.onopen = () => {
      // A first stream starts at the server's present: whatever changed between the page's reads and
      // this moment reached no one, so what the page shows is read again now that nothing can slip by.
      if (!everOpened && after === null) handlers.onIncompleteResume();
      everOpened = true;
      handlers.onStatus('open');
    };
    source.onerror = () => {
      source?.close();
      source = null;
      retry();
    };
    // The server is stopping (a deploy, a restart): it ends this stream on purpose, so reconnect at
    // once — behind a proxy, to another process — resuming after the last event seen, rather than
    // waiting out the retry delay of a stream that failed.
    source.addEventListener('server.restarting', () => {
      source?.close();
      source = null;
      if (!closed) void connect();
    });
    source.addEventListener('stream.resumed', ((message: MessageEvent<string>) => {
      if ((JSON.parse(message.data) as { complete: boolean }).complete !== true) handlers.onIncompleteResume();
    }) as EventListener);
    for (const type of WORKSPACE_EVENT_TYPES) source.addEventListener(type, handle as EventListener);
  };
  const retry = () => {
    handlers.onStatus('error');
    if (closed) return;
    timer = setTimeout(() => void connect(), RECONNECT_MS);
  };
  void connect();
  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    source?.close();
  };
}
