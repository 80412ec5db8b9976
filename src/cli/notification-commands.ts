import type { Command } from 'commander';
import { NOTIFICATION_KINDS, type NotificationChannel, type NotificationDelivery, type NotificationSettings } from '../schemas/notifications.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { cell } from './terminal-text.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const json = (value: unknown) => out(JSON.stringify(value, null, 2));
const CHANNELS = '/api/people/me/notification-channels';
/** The SMTP password is read from the environment, never from an argument (arguments show in `ps`). */
const SMTP_PASSWORD_VARIABLE = 'CONTROL_CENTER_SMTP_PASSWORD';

/** `approval,question` → the kinds; the server names a wrong one (field `events`). */
const kindsOf = (text: string | undefined): string[] => (text === undefined ? ['approval', 'question', 'plan', 'orchestration', 'budget', 'mention'] : text.split(',').map((kind) => kind.trim()).filter(Boolean));

function channelLine(channel: NotificationChannel): string {
  return `${channel.id}  ${cell(channel.kind, 7)} ${cell(channel.name, 18)} ${cell(channel.target, 40)} ${channel.events.join(',') || '(nothing)'}`;
}

/**
 * `control-center notifications …` (NTF-1): the calling person's own channels — webhooks, email —
 * with the events each receives, a test send, the delivery log; and, for the owner, the server's
 * notification settings (public URL, SMTP account, private targets). Web push is subscribed from a
 * browser (Settings → Notifications), since only a browser holds a push subscription.
 */
export function registerNotificationCommands(program: Command, context: OperatorCommandContext): void {
  const notifications = program.command('notifications').description(`where you hear about what waits for you: webhooks, email, web push (events: ${NOTIFICATION_KINDS.join(', ')})`);

  notifications
    .command('list')
    .description('your channels and the events each receives')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { channels } = await (await context.client()).request<{ channels: NotificationChannel[] }>('GET', CHANNELS);
      if (options.json) return json(channels);
      if (channels.length === 0) return out('no notification channels');
      for (const channel of channels) out(channelLine(channel));
    });
  notifications
    .command('add-webhook <url>')
    .description('add a signed webhook (Slack-compatible body); prints the signing secret once')
    .option('--name <name>', 'a name for it', 'Webhook')
    .option('--events <kinds>', 'comma-separated kinds (default: everything but runFailed)')
    .action(async (url: string, options: { name: string; events?: string }) => {
      const created = await (await context.client()).request<NotificationChannel & { signingSecret?: string }>('POST', CHANNELS, { kind: 'webhook', name: options.name, url, events: kindsOf(options.events) });
      out(channelLine(created));
      if (created.signingSecret) out(`signing secret (shown once): ${created.signingSecret}`);
    });
  notifications
    .command('add-email <address>')
    .description('add an email address (sent through the SMTP server the owner configured)')
    .option('--name <name>', 'a name for it', 'Email')
    .option('--events <kinds>', 'comma-separated kinds (default: everything but runFailed)')
    .action(async (address: string, options: { name: string; events?: string }) => {
      out(channelLine(await (await context.client()).request<NotificationChannel>('POST', CHANNELS, { kind: 'email', name: options.name, address, events: kindsOf(options.events) })));
    });
  notifications
    .command('events <channelId> <kinds>')
    .description('set the events a channel receives (comma-separated; "" for none)')
    .action(async (channelId: string, kinds: string) => {
      out(channelLine(await (await context.client()).request<NotificationChannel>('PATCH', `${CHANNELS}/${encodeURIComponent(channelId)}`, { events: kindsOf(kinds) })));
    });
  notifications
    .command('remove <channelId>')
    .description('remove a channel')
    .action(async (channelId: string) => {
      await (await context.client()).request('DELETE', `${CHANNELS}/${encodeURIComponent(channelId)}`);
      out(`removed ${channelId}`);
    });
  notifications
    .command('test <channelId>')
    .description('send a test notification (see it in `notifications log`)')
    .action(async (channelId: string) => {
      const delivery = await (await context.client()).request<NotificationDelivery>('POST', `${CHANNELS}/${encodeURIComponent(channelId)}/test`);
      out(`queued ${delivery.id}`);
    });
  notifications
    .command('log')
    .description('your delivery log, newest first, with every attempt')
    .option('--channel <channelId>', 'one channel only')
    .option('--json', 'print JSON')
    .action(async (options: { channel?: string; json?: boolean }) => {
      const query = options.channel ? `?channelId=${encodeURIComponent(options.channel)}` : '';
      const { deliveries } = await (await context.client()).request<{ deliveries: NotificationDelivery[] }>('GET', `/api/people/me/notification-deliveries${query}`);
      if (options.json) return json(deliveries);
      if (deliveries.length === 0) return out('nothing sent yet');
      for (const delivery of deliveries) {
        const attempts = delivery.attempts.map((attempt) => `#${attempt.attempt} ${attempt.ok ? 'ok' : `failed${attempt.httpStatus !== null ? ` ${attempt.httpStatus}` : ''}`}`).join(', ');
        out(`${delivery.createdAt}  ${cell(delivery.status, 9)} ${cell(delivery.title, 50)} ${attempts || 'waiting'}  ${delivery.link}`);
      }
    });
  notifications
    .command('settings')
    .description(`the server's notification settings (owner); the SMTP password comes from $${SMTP_PASSWORD_VARIABLE}`)
    .option('--public-url <url>', 'the address links in notifications use')
    .option('--allow-private-targets <yes|no>', 'let webhooks and push endpoints be on loopback or private addresses')
    .option('--smtp-host <host>')
    .option('--smtp-port <port>')
    .option('--smtp-secure <yes|no>', 'TLS from the start (port 465)')
    .option('--smtp-user <user>')
    .option('--smtp-from <address>')
    .option('--json', 'print JSON')
    .action(async (options: { publicUrl?: string; allowPrivateTargets?: string; smtpHost?: string; smtpPort?: string; smtpSecure?: string; smtpUser?: string; smtpFrom?: string; json?: boolean }) => {
      const api = await context.client();
      const yes = (value: string) => value === 'yes' || value === 'true';
      const smtp = {
        ...(options.smtpHost !== undefined ? { host: options.smtpHost } : {}),
        ...(options.smtpPort !== undefined ? { port: Number(options.smtpPort) } : {}),
        ...(options.smtpSecure !== undefined ? { secure: yes(options.smtpSecure) } : {}),
        ...(options.smtpUser !== undefined ? { user: options.smtpUser } : {}),
        ...(options.smtpFrom !== undefined ? { from: options.smtpFrom } : {}),
        ...(process.env[SMTP_PASSWORD_VARIABLE] ? { password: process.env[SMTP_PASSWORD_VARIABLE] } : {}),
      };
      const changes = {
        ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
        ...(options.allowPrivateTargets !== undefined ? { allowPrivateTargets: yes(options.allowPrivateTargets) } : {}),
        ...(Object.keys(smtp).length > 0 ? { smtp } : {}),
      };
      const settings = Object.keys(changes).length > 0 ? await api.request<NotificationSettings>('PATCH', '/api/notifications/settings', changes) : await api.request<NotificationSettings>('GET', '/api/notifications/settings');
      if (options.json) return json(settings);
      out(`public URL: ${settings.publicUrl ?? '(the address the server listens on)'}`);
      out(`private targets: ${settings.allowPrivateTargets ? 'allowed' : 'refused'}`);
      out(`SMTP: ${settings.smtp.host ? `${settings.smtp.host}:${settings.smtp.port ?? 587}${settings.smtp.secure ? ' (TLS)' : ''} as ${settings.smtp.user ?? '(no login)'}, from ${settings.smtp.from ?? '(not set)'}, password ${settings.smtp.password}` : 'not configured'}`);
    });
}
