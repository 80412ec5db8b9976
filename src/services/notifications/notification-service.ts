import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import webpush from 'web-push';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { WorkspaceEvent } from '../../schemas/events.js';
import type {
  CreateChannelBody,
  NotificationChannel,
  NotificationDelivery,
  NotificationKind,
  NotificationSettings,
  UpdateChannelBody,
  UpdateNotificationSettingsBody,
} from '../../schemas/notifications.js';
import type { RegistryStore } from '../../store/registry-store.js';
import type { NotificationChannelTable, NotificationSettingsTable } from '../../store/registry-schema.js';
import type { EventBus } from '../event-bus.js';
import type { Actor } from '../people/people-service.js';
import { rankOf } from '../people/role-rank.js';
import { sendEmail, sendMail, sendPush, sendWebhook, type AttemptOutcome, type OutgoingMail, type OutgoingNotification, type PushSubscriptionTarget, type SmtpAccount } from './channel-senders.js';
import { handlesOf, notificationOf, type Notification } from './notification-of-event.js';
import { checkNotificationTarget } from './notification-target.js';

const SETTINGS_ID = 'server';

/** The owner's SMTP account, or null while none is configured (a host and a From address are the least). */
function smtpAccountOf(settings: NotificationSettingsTable): SmtpAccount | null {
  if (!settings.smtp_host || !settings.smtp_from) return null;
  return { host: settings.smtp_host, port: Number(settings.smtp_port ?? 587), secure: Number(settings.smtp_secure) === 1, user: settings.smtp_user, password: settings.smtp_password, from: settings.smtp_from };
}
/** The first try and three retries, waiting longer each time (NTF-1). */
export const MAX_ATTEMPTS = 4;
const RETRY_DELAYS_MS = [500, 2_000, 8_000];

type ChannelRow = NotificationChannelTable;

function toChannel(row: ChannelRow): NotificationChannel {
  const target = row.kind === 'push' ? new URL((JSON.parse(row.target) as PushSubscriptionTarget).endpoint).origin : row.target;
  return {
    id: row.id,
    kind: row.kind as NotificationChannel['kind'],
    name: row.name,
    target,
    secret: row.secret ? 'set' : 'not set',
    events: JSON.parse(row.events) as NotificationKind[],
    createdAt: row.created_at,
  };
}

/**
 * NTF-1: each person's channels (webhook, email, web push) and the event kinds they receive, the
 * server's SMTP account and VAPID keys, and delivery. Delivery never holds up what caused it: the
 * event listener only queues (a row per channel and event, then an in-memory timer), sending happens
 * afterwards, each attempt is logged, failures are retried with back-off and end `failed`.
 */
export class NotificationService {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  /** Aborts webhook and push requests under way when the server stops (they stay pending for the next start). */
  private readonly stopping = new AbortController();
  /** The address this server listens on: links use it when the owner set no public URL. */
  private serverUrl = 'http://127.0.0.1:4317';

  constructor(
    private readonly registry: RegistryStore,
    events: EventBus,
    private readonly logger: Logger,
  ) {
    // Only what this process published: each event is queued once however many processes run.
    // Most events (a run's live output above all) tell nobody: they are dismissed here, synchronously.
    events.subscribeAll((event) => {
      const notification = notificationOf(event);
      if (notification) this.track(this.dispatch(event, notification));
    });
  }

  private get db() {
    return this.registry.db;
  }

  setServerUrl(url: string): void {
    this.serverUrl = url;
  }

  // ---- server settings (owner) ----

  private async settingsRow(): Promise<NotificationSettingsTable> {
    const row = await this.db.selectFrom('notification_settings').selectAll().where('id', '=', SETTINGS_ID).executeTakeFirst();
    if (row?.vapid_public_key && row.vapid_private_key) return row;
    // VAPID keys are made once, on first need; the private one never leaves the registry.
    const keys = webpush.generateVAPIDKeys();
    if (!row) {
      await this.db
        .insertInto('notification_settings')
        .values({ id: SETTINGS_ID, public_url: null, allow_private_targets: 0, smtp_host: null, smtp_port: null, smtp_secure: 0, smtp_user: null, smtp_password: null, smtp_from: null, vapid_public_key: keys.publicKey, vapid_private_key: keys.privateKey, updated_at: nowIso() })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
    } else {
      await this.db.updateTable('notification_settings').set({ vapid_public_key: keys.publicKey, vapid_private_key: keys.privateKey }).where('id', '=', SETTINGS_ID).where('vapid_private_key', 'is', null).execute();
    }
    return this.db.selectFrom('notification_settings').selectAll().where('id', '=', SETTINGS_ID).executeTakeFirstOrThrow();
  }

  async settings(): Promise<NotificationSettings> {
    const row = await this.settingsRow();
    return {
      publicUrl: row.public_url,
      allowPrivateTargets: Number(row.allow_private_targets) === 1,
      smtp: { host: row.smtp_host, port: row.smtp_port === null ? null : Number(row.smtp_port), secure: Number(row.smtp_secure) === 1, user: row.smtp_user, from: row.smtp_from, password: row.smtp_password ? 'set' : 'not set' },
      vapidPublicKey: row.vapid_public_key!,
    };
  }

  async updateSettings(changes: UpdateNotificationSettingsBody): Promise<NotificationSettings> {
    await this.settingsRow();
    const smtp = changes.smtp ?? {};
    const values: Partial<NotificationSettingsTable> = { updated_at: nowIso() };
    if (changes.publicUrl !== undefined) values.public_url = changes.publicUrl === null ? null : changes.publicUrl.replace(/\/+$/, '');
    if (changes.allowPrivateTargets !== undefined) values.allow_private_targets = changes.allowPrivateTargets ? 1 : 0;
    if (smtp.host !== undefined) values.smtp_host = smtp.host;
    if (smtp.port !== undefined) values.smtp_port = smtp.port;
    if (smtp.secure !== undefined) values.smtp_secure = smtp.secure ? 1 : 0;
    if (smtp.user !== undefined) values.smtp_user = smtp.user;
    if (smtp.password !== undefined) values.smtp_password = smtp.password;
    if (smtp.from !== undefined) values.smtp_from = smtp.from;
    await this.db.updateTable('notification_settings').set(values).where('id', '=', SETTINGS_ID).execute();
    return this.settings();
  }

  /**
   * Sends one email through the owner's SMTP account at once (no queue, no retry: the caller tells
   * the person whether it went). Null when no SMTP server is configured.
   */
  async sendMailNow(to: string, mail: OutgoingMail): Promise<AttemptOutcome | null> {
    const account = smtpAccountOf(await this.settingsRow());
    return account ? sendMail(account, to, mail) : null;
  }

  /** Where people reach this server: the owner's public URL, else the address it listens on. */
  async publicBaseUrl(): Promise<string> {
    return (await this.settingsRow()).public_url ?? this.serverUrl;
  }

  async vapidPublicKey(): Promise<string> {
    return (await this.settingsRow()).vapid_public_key!;
  }

  // ---- a person's channels ----

  async channels(actor: Actor): Promise<NotificationChannel[]> {
    const rows = await this.db.selectFrom('notification_channels').selectAll().where('person_id', '=', actor.personId).orderBy('created_at').execute();
    return rows.map(toChannel);
  }

  async createChannel(actor: Actor, body: CreateChannelBody): Promise<NotificationChannel & { signingSecret?: string }> {
    if (actor.readOnly) throw new ForbiddenError('this credential is read-only: it changes nothing', 'authorization');
    const allowPrivate = Number((await this.settingsRow()).allow_private_targets) === 1;
    let target: string;
    let secret: string | null = null;
    let madeSecret: string | undefined;
    if (body.kind === 'webhook') {
      target = (await checkNotificationTarget(body.url, 'url', allowPrivate)).url.toString();
      secret = body.secret ?? (madeSecret = `whsec_${randomBytes(24).toString('base64url')}`);
    } else if (body.kind === 'email') {
      target = body.address;
    } else {
      await checkNotificationTarget(body.subscription.endpoint, 'subscription.endpoint', allowPrivate);
      target = JSON.stringify(body.subscription);
    }
    const now = nowIso();
    const row: ChannelRow = { id: newId('nch'), person_id: actor.personId, kind: body.kind, name: body.name, target, secret, events: JSON.stringify([...new Set(body.events)]), created_at: now, updated_at: now };
    await this.db.insertInto('notification_channels').values(row).execute();
    return { ...toChannel(row), ...(madeSecret ? { signingSecret: madeSecret } : {}) };
  }

  private async ownChannel(actor: Actor, channelId: string): Promise<ChannelRow> {
    const row = await this.db.selectFrom('notification_channels').selectAll().where('id', '=', channelId).where('person_id', '=', actor.personId).executeTakeFirst();
    // Another person's channel is as unknown as a missing one.
    if (!row) throw new NotFoundError('notification channel', channelId, 'channelId');
    return row;
  }

  async updateChannel(actor: Actor, channelId: string, changes: UpdateChannelBody): Promise<NotificationChannel> {
    if (actor.readOnly) throw new ForbiddenError('this credential is read-only: it changes nothing', 'authorization');
    const row = await this.ownChannel(actor, channelId);
    if (changes.secret !== undefined && row.kind !== 'webhook') throw new ValidationError('secret', `only a webhook has a signing secret, not a ${row.kind} channel`);
    const values: Partial<ChannelRow> = { updated_at: nowIso() };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.events !== undefined) values.events = JSON.stringify([...new Set(changes.events)]);
    if (changes.secret !== undefined) values.secret = changes.secret;
    await this.db.updateTable('notification_channels').set(values).where('id', '=', channelId).execute();
    return toChannel({ ...row, ...values });
  }

  async deleteChannel(actor: Actor, channelId: string): Promise<void> {
    if (actor.readOnly) throw new ForbiddenError('this credential is read-only: it changes nothing', 'authorization');
    await this.ownChannel(actor, channelId);
    await this.db.deleteFrom('notification_channels').where('id', '=', channelId).execute();
  }

  /** Sends a test notification to one channel now (queued like any other): shows the channel works. */
  async testChannel(actor: Actor, channelId: string): Promise<NotificationDelivery> {
    if (actor.readOnly) throw new ForbiddenError('this credential is read-only: it changes nothing', 'authorization');
    const row = await this.ownChannel(actor, channelId);
    const deliveryId = await this.insertDelivery(row, null, { kind: 'test', eventKey: `test:${newId('t')}`, title: 'Test notification from Control Center', path: '/', minRole: 'viewer' });
    return (await this.deliveries(actor, { deliveryId: deliveryId! }))[0]!;
  }

  /** The delivery log of a person's channels, newest first, with every attempt. */
  async deliveries(actor: Actor, filter: { channelId?: string; deliveryId?: string; limit?: number } = {}): Promise<NotificationDelivery[]> {
    let query = this.db.selectFrom('notification_deliveries').selectAll().where('person_id', '=', actor.personId);
    if (filter.channelId) query = query.where('channel_id', '=', filter.channelId);
    if (filter.deliveryId) query = query.where('id', '=', filter.deliveryId);
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit ?? 100).execute();
    if (rows.length === 0) return [];
    const attempts = await this.db.selectFrom('notification_attempts').selectAll().where('delivery_id', 'in', rows.map((row) => row.id)).orderBy('attempt').execute();
    return rows.map((row) => ({
      id: row.id,
      channelId: row.channel_id,
      workspaceId: row.workspace_id,
      kind: row.kind,
      title: row.title,
      link: row.link,
      status: row.status as NotificationDelivery['status'],
      attempts: attempts
        .filter((attempt) => attempt.delivery_id === row.id)
        .map((attempt) => ({ attempt: Number(attempt.attempt), ok: Number(attempt.ok) === 1, httpStatus: attempt.http_status === null ? null : Number(attempt.http_status), error: attempt.error, at: attempt.at })),
      lastError: row.last_error,
      createdAt: row.created_at,
    }));
  }

  // ---- dispatch and delivery ----

  /** Who may be told about a notification in a workspace: the owner, and members whose role is high enough. */
  private async recipients(workspaceId: string, notification: Notification): Promise<string[]> {
    const people = await this.db
      .selectFrom('people')
      .leftJoin('workspace_members', (join) => join.onRef('workspace_members.person_id', '=', 'people.id').on('workspace_members.workspace_id', '=', workspaceId))
      .select(['people.id', 'people.name', 'people.is_owner', 'workspace_members.role'])
      .where('people.removed_at', 'is', null)
      .execute();
    const allowed = people.filter((person) => Number(person.is_owner) === 1 || (person.role !== null && rankOf(person.role as 'viewer') >= rankOf(notification.minRole)));
    if (!notification.mentions) return allowed.map((person) => person.id);
    const mentioned = new Set(notification.mentions);
    return allowed.filter((person) => handlesOf(person.name).some((handle) => mentioned.has(handle))).map((person) => person.id);
  }

  private async dispatch(event: WorkspaceEvent, notification: Notification): Promise<void> {
    if (this.closed) return;
    let recipients = await this.recipients(event.workspaceId, notification);
    // Nobody is told about their own message.
    if (event.type === 'message.created' && event.data.authorKind === 'operator') recipients = recipients.filter((id) => id !== event.data.authorId);
    if (recipients.length === 0) return;
    const channels = await this.db.selectFrom('notification_channels').selectAll().where('person_id', 'in', recipients).execute();
    for (const channel of channels) {
      if (!(JSON.parse(channel.events) as string[]).includes(notification.kind)) continue;
      await this.insertDelivery(channel, event.workspaceId, notification);
    }
  }

  /** Records a delivery (once per channel and event) and queues its first attempt; null when it already existed. */
  private async insertDelivery(channel: ChannelRow, workspaceId: string | null, notification: Omit<Notification, 'kind'> & { kind: string }): Promise<string | null> {
    const now = nowIso();
    const id = newId('ndl');
    const link = `${await this.publicBaseUrl()}${notification.path}`;
    const inserted = await this.db
      .insertInto('notification_deliveries')
      .values({ id, channel_id: channel.id, person_id: channel.person_id, workspace_id: workspaceId, event_key: notification.eventKey, kind: notification.kind, title: notification.title, link, status: 'pending', attempts: 0, last_error: null, created_at: now, updated_at: now })
      .onConflict((conflict) => conflict.columns(['channel_id', 'event_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
    this.schedule(id, 0);
    return id;
  }

  private schedule(deliveryId: string, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(this.attempt(deliveryId));
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.logger.error({ err: error }, 'a notification could not be queued or sent'));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async attempt(deliveryId: string): Promise<void> {
    const delivery = await this.db.selectFrom('notification_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
    if (!delivery || delivery.status !== 'pending') return;
    const channel = await this.db.selectFrom('notification_channels').selectAll().where('id', '=', delivery.channel_id).executeTakeFirst();
    const number = Number(delivery.attempts) + 1;
    const outcome: AttemptOutcome = channel ? await this.send(channel, { deliveryId, kind: delivery.kind, title: delivery.title, url: delivery.link, workspaceId: delivery.workspace_id }) : { ok: false, httpStatus: null, error: 'the channel was removed' };
    const now = nowIso();
    await this.db.insertInto('notification_attempts').values({ id: newId('nat'), delivery_id: deliveryId, attempt: number, ok: outcome.ok ? 1 : 0, http_status: outcome.httpStatus, error: outcome.error, at: now }).execute();
    const retry = !outcome.ok && channel !== undefined && number < MAX_ATTEMPTS;
    const status = outcome.ok ? 'delivered' : retry ? 'pending' : 'failed';
    await this.db.updateTable('notification_deliveries').set({ attempts: number, status, last_error: outcome.error, updated_at: now }).where('id', '=', deliveryId).execute();
    if (retry) this.schedule(deliveryId, RETRY_DELAYS_MS[number - 1] ?? RETRY_DELAYS_MS.at(-1)!);
    else if (!outcome.ok) this.logger.warn({ deliveryId, channelId: delivery.channel_id, error: outcome.error }, 'a notification could not be delivered');
  }

  private async send(channel: ChannelRow, notification: OutgoingNotification): Promise<AttemptOutcome> {
    const settings = await this.settingsRow();
    const allowPrivate = Number(settings.allow_private_targets) === 1;
    try {
      if (channel.kind === 'webhook') {
        // Checked again at send time: a name may resolve elsewhere now than when the channel was made.
        return await sendWebhook(await checkNotificationTarget(channel.target, 'url', allowPrivate), channel.secret ?? '', notification, this.stopping.signal);
      }
      if (channel.kind === 'email') {
        const account = smtpAccountOf(settings);
        if (!account) return { ok: false, httpStatus: null, error: 'no SMTP server is configured (the owner sets one in the notification settings)' };
        return await sendEmail(account, channel.target, notification);
      }
      const subscription = JSON.parse(channel.target) as PushSubscriptionTarget;
      const target = await checkNotificationTarget(subscription.endpoint, 'subscription.endpoint', allowPrivate);
      const subject = settings.public_url?.startsWith('https:') ? settings.public_url : 'mailto:notifications@control-center.invalid';
      return await sendPush(target, subscription, { publicKey: settings.vapid_public_key!, privateKey: settings.vapid_private_key!, subject }, notification, this.stopping.signal);
    } catch (error) {
      return { ok: false, httpStatus: null, error: (error as Error).message };
    }
  }

  /** Picks up deliveries a stopped server left pending (the queue in memory is rebuilt from the table). */
  async recover(): Promise<void> {
    const pending = await this.db.selectFrom('notification_deliveries').select('id').where('status', '=', 'pending').execute();
    for (const row of pending) this.schedule(row.id, 0);
  }

  /** Stops timers and waits for attempts under way (a pending delivery is picked up on the next start). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }
}
