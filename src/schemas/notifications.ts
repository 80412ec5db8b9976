import { z } from 'zod';
import { IsoTime } from './common.js';

/** NTF-1: what a person can choose to hear about. */
export const NOTIFICATION_KINDS = ['approval', 'question', 'plan', 'orchestration', 'budget', 'runFailed', 'mention'] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof NotificationKind>;

export const CHANNEL_KINDS = ['webhook', 'email', 'push'] as const;
export const ChannelKind = z.enum(CHANNEL_KINDS);
export type ChannelKind = z.infer<typeof ChannelKind>;

const Events = z.array(NotificationKind).max(NOTIFICATION_KINDS.length);
const Name = z.string().trim().min(1).max(100);

/** A browser's push subscription, as `PushSubscription.toJSON()` gives it. */
export const PushSubscriptionBody = z.strictObject({
  endpoint: z.string().url().max(2_000),
  keys: z.strictObject({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
});

export const CreateChannelBody = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('webhook'),
    name: Name,
    url: z.string().max(2_000),
    /** The signing secret; one is made (and shown once) when absent. */
    secret: z.string().min(16).max(200).optional(),
    events: Events,
  }),
  z.strictObject({ kind: z.literal('email'), name: Name, address: z.email().max(320), events: Events }),
  z.strictObject({ kind: z.literal('push'), name: Name, subscription: PushSubscriptionBody, events: Events }),
]);
export type CreateChannelBody = z.infer<typeof CreateChannelBody>;

export const UpdateChannelBody = z.strictObject({
  name: Name.optional(),
  events: Events.optional(),
  /** Webhooks only: a new signing secret (write-only). */
  secret: z.string().min(16).max(200).optional(),
});
export type UpdateChannelBody = z.infer<typeof UpdateChannelBody>;

/** A channel as its person reads it: the target without secrets, the secret only as set / not set. */
export const NotificationChannel = z.object({
  id: z.string(),
  kind: ChannelKind,
  name: z.string(),
  /** The webhook URL, the email address, or the push endpoint's origin. */
  target: z.string(),
  secret: z.enum(['set', 'not set']),
  events: z.array(NotificationKind),
  createdAt: IsoTime,
});
export type NotificationChannel = z.infer<typeof NotificationChannel>;

/** The answer to creating a channel: a webhook's made secret appears here, once. */
export const CreatedChannel = NotificationChannel.extend({ signingSecret: z.string().optional() });

export const DeliveryAttempt = z.object({ attempt: z.number(), ok: z.boolean(), httpStatus: z.number().nullable(), error: z.string().nullable(), at: IsoTime });

export const NotificationDelivery = z.object({
  id: z.string(),
  channelId: z.string(),
  workspaceId: z.string().nullable(),
  kind: z.string(),
  title: z.string(),
  link: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.array(DeliveryAttempt),
  lastError: z.string().nullable(),
  createdAt: IsoTime,
});
export type NotificationDelivery = z.infer<typeof NotificationDelivery>;

/** The server's notification settings as the owner reads them (password and private key write-only). */
export const NotificationSettings = z.object({
  publicUrl: z.string().nullable(),
  allowPrivateTargets: z.boolean(),
  smtp: z.object({
    host: z.string().nullable(),
    port: z.number().nullable(),
    secure: z.boolean(),
    user: z.string().nullable(),
    from: z.string().nullable(),
    password: z.enum(['set', 'not set']),
  }),
  vapidPublicKey: z.string(),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export const UpdateNotificationSettingsBody = z.strictObject({
  publicUrl: z.url({ protocol: /^https?$/ }).max(500).nullable().optional(),
  allowPrivateTargets: z.boolean().optional(),
  smtp: z
    .strictObject({
      host: z.string().trim().min(1).max(255).nullable().optional(),
      port: z.number().int().min(1).max(65_535).nullable().optional(),
      secure: z.boolean().optional(),
      user: z.string().max(320).nullable().optional(),
      password: z.string().max(1_000).nullable().optional(),
      from: z.string().max(320).nullable().optional(),
    })
    .optional(),
});
export type UpdateNotificationSettingsBody = z.infer<typeof UpdateNotificationSettingsBody>;
