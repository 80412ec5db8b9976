import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ControlCenter } from '../../services/control-center.js';
import type { WorkspaceEvent } from '../../services/event-bus.js';
import { OpenEventStreams } from '../open-event-streams.js';
import { WorkspaceParams } from './workspace-routes.js';

/** How often an idle stream sends a comment line, so proxies and clients see it is alive. */
const HEARTBEAT_MS = 15_000;

/**
 * The live event stream of one workspace (server-sent events). Each event is
 * `id: <sequence>`, `event: <type>`, `data: <json>`; a client reconnecting with Last-Event-ID
 * gets the events it missed from the recent buffer (on PostgreSQL, from the committed events of every
 * process when the buffer does not reach back: `id` is then the event's commit id).
 *
 * The web app cannot set Last-Event-ID on a new EventSource (each one needs a fresh single-use ticket
 * in its URL), so the same position is also taken as `?lastEventId=`. A stream that resumes tells
 * first whether it could: `event: stream.resumed` with `{"complete": false}` means events were lost
 * (the buffer no longer reaches back, or the id came from an earlier server), and the client must
 * refetch what it shows instead of trusting its caches.
 *
 * When the process stops (SIGTERM), every open stream gets `event: server.restarting` and ends: the
 * client reconnects at once, to another API process, resuming from its last event id.
 */
export function eventRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    const streams = new OpenEventStreams();
    // preClose: the server already answers new requests 503, and has not yet cut the connections.
    server.addHook('preClose', () => streams.closeAll());
    server.get(
      '/api/workspaces/:workspaceId/events',
      {
        // SEC-1: EventSource cannot send headers, so this one route also takes a single-use
        // `?ticket=` (POST /api/auth/sse-ticket) — or the session cookie; never the operator token.
        config: { ticketInQuery: true, role: 'viewer' },
        schema: {
          tags: ['events'],
          params: WorkspaceParams,
          querystring: z.object({
            ticket: z.string().optional(),
            lastEventId: z.string().regex(/^\d+$/, 'lastEventId must be the id of an event this stream sent (a whole number)').optional(),
          }),
          description: 'Server-sent events: agent.created/updated/deleted, run.created/updated, workspace.* …',
        },
      },
      async (request, reply) => {
        await app.workspaces.get(request.params.workspaceId);
        // On PostgreSQL: this process follows the workspace's committed events before the stream opens.
        await app.events.ready(request.params.workspaceId);
        const resumeFrom = Number(request.headers['last-event-id'] ?? request.query.lastEventId);
        const lastEventId = Number.isFinite(resumeFrom) ? resumeFrom : undefined;
        reply.hijack();
        const response = reply.raw;
        response.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        response.write(': connected\n\n');
        if (lastEventId !== undefined) {
          const complete = app.events.canReplayFrom(request.params.workspaceId, lastEventId);
          response.write(`event: stream.resumed\ndata: ${JSON.stringify({ complete })}\n\n`);
        }
        const send = (event: WorkspaceEvent) => {
          response.write(`id: ${event.sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        };
        const unsubscribe = app.events.subscribe(request.params.workspaceId, send, lastEventId);
        const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), HEARTBEAT_MS);
        // TEAM-2: a stream is access held open; it ends the moment its person is removed, their role
        // changes, or the session or token it was opened through is revoked — on whichever process.
        const principal = request.principal;
        const stopListening = principal?.kind === 'operator' ? app.revocations.subscribe(principal.operatorId, () => response.end(), { credential: principal.credential ?? null, workspaceId: request.params.workspaceId }) : () => {};
        const forget = streams.add(response);
        const close = () => {
          clearInterval(heartbeat);
          unsubscribe();
          stopListening();
          forget();
        };
        request.raw.on('close', close);
        response.on('error', close);
      },
    );
  };
}
