import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../../schemas/common.js';
import { CreateChannelBody, CreatedChannel, NotificationChannel, NotificationDelivery, NotificationSettings, UpdateChannelBody, UpdateNotificationSettingsBody } from '../../schemas/notifications.js';
import type { ControlCenter } from '../../services/control-center.js';
import { actorOf } from './people-routes.js';

const tags = ['notifications'];
const ChannelParams = z.strictObject({ channelId: z.string().min(1).max(64) });

/**
 * NTF-1: each signed-in person manages their own channels and reads their own delivery log (a run
 * token is no person and reaches none of this); the server's SMTP account, public URL and whether
 * private addresses may be targets are the owner's.
 */
export function notificationRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/notifications/settings',
      { config: { role: 'owner' }, schema: { tags, summary: "The server's notification settings (the SMTP password only as set / not set)", response: { 200: NotificationSettings } } },
      async () => app.notifications.settings(),
    );
    server.patch(
      '/api/notifications/settings',
      { config: { role: 'owner' }, schema: { tags, summary: 'Set the public URL links use, the SMTP account, and whether webhooks may target private addresses', body: UpdateNotificationSettingsBody, response: { 200: NotificationSettings, 400: ApiError, 403: ApiError } } },
      async (request) => {
        actorOf(request.principal, true);
        return app.notifications.updateSettings(request.body);
      },
    );
    server.get(
      '/api/notifications/push-key',
      { config: { role: 'signedIn' }, schema: { tags, summary: "The server's VAPID public key, for a browser's push subscription", response: { 200: z.object({ publicKey: z.string() }) } } },
      async () => ({ publicKey: await app.notifications.vapidPublicKey() }),
    );
    server.get(
      '/api/people/me/notification-channels',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Your notification channels and the events each receives (secrets only as set / not set)', response: { 200: z.object({ channels: z.array(NotificationChannel) }) } } },
      async (request) => ({ channels: await app.notifications.channels(actorOf(request.principal)) }),
    );
    server.post(
      '/api/people/me/notification-channels',
      {
        config: { role: 'signedIn' },
        schema: { tags, summary: 'Add a webhook, email or web push channel; a webhook made without a secret gets one, shown once', body: CreateChannelBody, response: { 201: CreatedChannel, 400: ApiError, 403: ApiError } },
      },
      async (request, reply) => {
        const created = await app.notifications.createChannel(actorOf(request.principal, true), request.body);
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );
    server.patch(
      '/api/people/me/notification-channels/:channelId',
      { config: { role: 'signedIn' }, schema: { tags, summary: "Change a channel's name, events or signing secret", params: ChannelParams, body: UpdateChannelBody, response: { 200: NotificationChannel, 400: ApiError, 403: ApiError, 404: ApiError } } },
      async (request) => app.notifications.updateChannel(actorOf(request.principal, true), request.params.channelId, request.body),
    );
    server.delete(
      '/api/people/me/notification-channels/:channelId',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Remove a channel; deliveries still pending to it end failed', params: ChannelParams, response: { 204: z.null(), 403: ApiError, 404: ApiError } } },
      async (request, reply) => {
        await app.notifications.deleteChannel(actorOf(request.principal, true), request.params.channelId);
        return reply.code(204).send(null);
      },
    );
    server.post(
      '/api/people/me/notification-channels/:channelId/test',
      { config: { role: 'signedIn' }, schema: { tags, summary: 'Send a test notification to a channel (it appears in the delivery log)', params: ChannelParams, response: { 202: NotificationDelivery, 403: ApiError, 404: ApiError } } },
      async (request, reply) => reply.code(202).send(await app.notifications.testChannel(actorOf(request.principal, true), request.params.channelId)),
    );
    server.get(
      '/api/people/me/notification-deliveries',
      {
        config: { role: 'signedIn' },
        schema: {
          tags,
          summary: 'Your delivery log, newest first: each delivery with its status and every attempt',
          querystring: z.strictObject({ channelId: z.string().min(1).max(64).optional(), limit: z.coerce.number().int().min(1).max(500).optional() }),
          response: { 200: z.object({ deliveries: z.array(NotificationDelivery) }) },
        },
      },
      async (request) => ({ deliveries: await app.notifications.deliveries(actorOf(request.principal), request.query) }),
    );
  };
}
