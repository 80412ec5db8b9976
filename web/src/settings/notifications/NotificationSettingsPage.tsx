import { useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { SettingsNav } from '../../pages/SettingsNav';
import { Empty, ErrorState, FieldError, Loading } from '../../ui/states';
import { useCreateChannel, useDeleteChannel, useNotificationChannels, useNotificationDeliveries, useTestChannel, useUpdateChannelEvents, type NotificationChannel, type NotificationKind } from './notification-hooks';

const KINDS: Array<{ kind: NotificationKind; label: string }> = [
  { kind: 'approval', label: 'Approval waiting' },
  { kind: 'question', label: 'Question waiting' },
  { kind: 'plan', label: 'Plan ready for approval' },
  { kind: 'orchestration', label: 'Orchestration proposed' },
  { kind: 'budget', label: 'Budget threshold or decision' },
  { kind: 'runFailed', label: 'Run failed' },
  { kind: 'mention', label: '@mention of you' },
];
const DEFAULT_KINDS: NotificationKind[] = ['approval', 'question', 'plan', 'orchestration', 'budget', 'mention'];
const WORKER = '/notification-worker.js';

function KindChoices({ value, onChange, name, disabled }: { value: NotificationKind[]; onChange: (kinds: NotificationKind[]) => void; name: string; disabled?: boolean }) {
  return (
    <fieldset className="kind-choices">
      <legend className="small muted">Tell me about</legend>
      {KINDS.map(({ kind, label }) => (
        // Inline so the choices read as one row wherever the fieldset sits (a table cell or a form).
        <label key={kind} className="small" style={{ display: 'inline-flex', alignItems: 'center', gap: 4, marginRight: 12, width: 'auto' }}>
          <input
            style={{ width: 'auto', margin: 0 }}
            type="checkbox"
            name={`${name}-${kind}`}
            checked={value.includes(kind)}
            disabled={disabled}
            onChange={(event) => onChange(event.target.checked ? [...value, kind] : value.filter((entry) => entry !== kind))}
          />{' '}
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** Subscribes this browser to web push with the server's VAPID key, through the app's service worker. */
async function subscribeThisBrowser(): Promise<PushSubscriptionJSON> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) throw new Error('This browser cannot receive web push.');
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('Notifications are blocked for this site in the browser.');
  const registration = await navigator.serviceWorker.register(WORKER);
  await navigator.serviceWorker.ready;
  const { publicKey } = await api.get<{ publicKey: string }>('/api/notifications/push-key');
  const key = Uint8Array.from(atob(publicKey.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  return subscription.toJSON();
}

function ChannelRow({ channel }: { channel: NotificationChannel }) {
  const update = useUpdateChannelEvents();
  const remove = useDeleteChannel();
  const test = useTestChannel();
  return (
    <tr data-channel-id={channel.id}>
      <td data-label="Channel">
        <strong>{channel.name}</strong>
        <div className="small muted">
          {channel.kind} · <code>{channel.target}</code>
          {channel.kind === 'webhook' ? ` · signing secret ${channel.secret}` : ''}
        </div>
      </td>
      <td data-label="Tells about">
        <KindChoices name={channel.id} value={channel.events} disabled={update.isPending} onChange={(events) => update.mutate({ channelId: channel.id, events })} />
        {update.isError ? <FieldError message={errorMessage(update.error)} /> : null}
      </td>
      <td>
        <button type="button" className="button small" disabled={test.isPending} onClick={() => test.mutate(channel.id)}>
          Send a test
        </button>{' '}
        <button type="button" className="button small" disabled={remove.isPending} onClick={() => remove.mutate(channel.id)}>
          Remove
        </button>
        {test.isError ? <FieldError message={errorMessage(test.error)} /> : null}
      </td>
    </tr>
  );
}

/**
 * NTF-1: Settings → Notifications, for the signed-in person: where they hear about what waits for
 * them (webhooks, email, web push on this browser), which events reach each channel, and the
 * delivery log with every attempt. Secrets are write-only: a webhook's made secret shows once.
 */
export function NotificationSettingsPage({ ws }: { ws: string }) {
  const channels = useNotificationChannels();
  const deliveries = useNotificationDeliveries();
  const create = useCreateChannel();
  const [webhook, setWebhook] = useState({ name: '', url: '', events: DEFAULT_KINDS });
  const [email, setEmail] = useState({ name: 'Email', address: '', events: DEFAULT_KINDS });
  const [pushError, setPushError] = useState<string | null>(null);
  const names = new Map((channels.data?.channels ?? []).map((channel) => [channel.id, channel.name]));

  return (
    <main className="page" data-testid="notifications-page">
      <SettingsNav ws={ws} active="notifications" />
      <h2>Notifications</h2>
      <p className="small muted">Your own channels: each message carries a title and a link straight to the decision, never a secret. Only what your role in a workspace lets you see reaches you.</p>

      <section aria-labelledby="notification-channels">
        <h3 id="notification-channels">Your channels</h3>
        {channels.isPending ? (
          <Loading />
        ) : channels.isError ? (
          <ErrorState error={channels.error} what="Channels" retry={() => void channels.refetch()} />
        ) : channels.data.channels.length === 0 ? (
          <Empty title="No channels yet">Add a webhook, an email address or this browser below.</Empty>
        ) : (
          <table className="table" data-testid="notification-channels">
            <tbody>
              {channels.data.channels.map((channel) => (
                <ChannelRow key={channel.id} channel={channel} />
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="add-webhook">
        <h3 id="add-webhook">Add a webhook</h3>
        <p className="small muted">Slack-compatible JSON (text, blocks), signed: the header X-Control-Center-Signature is t=&lt;unix time&gt;,v1=HMAC-SHA256(secret, "t.body").</p>
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate({ kind: 'webhook', name: webhook.name.trim() || 'Webhook', url: webhook.url.trim(), events: webhook.events });
          }}
        >
          <label>
            Name <input value={webhook.name} onChange={(event) => setWebhook({ ...webhook, name: event.target.value })} placeholder="Team Slack" />
          </label>
          <label>
            URL <input type="url" required value={webhook.url} onChange={(event) => setWebhook({ ...webhook, url: event.target.value })} placeholder="https://hooks.slack.com/services/…" />
          </label>
          <KindChoices name="new-webhook" value={webhook.events} onChange={(events) => setWebhook({ ...webhook, events })} />
          <div>
            <button type="submit" className="button" disabled={create.isPending}>
              Add webhook
            </button>
          </div>
        </form>
        {create.data?.signingSecret ? (
          <p data-testid="signing-secret">
            Signing secret (shown once — keep it with the receiver): <code>{create.data.signingSecret}</code>
          </p>
        ) : null}
      </section>

      <section aria-labelledby="add-email">
        <h3 id="add-email">Add an email address</h3>
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate({ kind: 'email', name: email.name.trim() || 'Email', address: email.address.trim(), events: email.events });
          }}
        >
          <label>
            Address <input type="email" required value={email.address} onChange={(event) => setEmail({ ...email, address: event.target.value })} />
          </label>
          <KindChoices name="new-email" value={email.events} onChange={(events) => setEmail({ ...email, events })} />
          <div>
            <button type="submit" className="button" disabled={create.isPending}>
              Add email
            </button>
          </div>
        </form>
      </section>

      <section aria-labelledby="add-push">
        <h3 id="add-push">This browser</h3>
        <button
          type="button"
          className="button"
          disabled={create.isPending}
          onClick={() => {
            setPushError(null);
            subscribeThisBrowser()
              .then((subscription) =>
                create.mutateAsync({
                  kind: 'push',
                  name: `Browser (${navigator.platform || 'this device'})`,
                  subscription: { endpoint: subscription.endpoint ?? '', keys: { p256dh: subscription.keys?.p256dh ?? '', auth: subscription.keys?.auth ?? '' } },
                  events: DEFAULT_KINDS,
                }),
              )
              .catch((error: unknown) => setPushError(errorMessage(error)));
          }}
        >
          Notify this browser (web push)
        </button>
        {pushError ? <FieldError message={pushError} /> : null}
      </section>
      {create.isError ? <FieldError message={errorMessage(create.error)} /> : null}

      <section aria-labelledby="delivery-log">
        <h3 id="delivery-log">Delivery log</h3>
        {deliveries.isPending ? (
          <Loading />
        ) : deliveries.isError ? (
          <ErrorState error={deliveries.error} what="Deliveries" retry={() => void deliveries.refetch()} />
        ) : deliveries.data.deliveries.length === 0 ? (
          <Empty title="Nothing sent yet" />
        ) : (
          <table className="table" data-testid="delivery-log">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Channel</th>
                <th scope="col">What</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.deliveries.map((delivery) => (
                <tr key={delivery.id} data-delivery-id={delivery.id} data-status={delivery.status}>
                  <td className="small" data-label="When">{new Date(delivery.createdAt).toLocaleString()}</td>
                  <td data-label="Channel">{names.get(delivery.channelId) ?? 'removed channel'}</td>
                  <td data-label="What">
                    <a href={delivery.link}>{delivery.title}</a>
                  </td>
                  <td data-label="Status">{delivery.status}</td>
                  <td className="small" data-label="Attempts">
                    {delivery.attempts.map((attempt) => `#${attempt.attempt} ${attempt.ok ? 'ok' : 'failed'}${attempt.httpStatus !== null ? ` (HTTP ${attempt.httpStatus})` : ''}${attempt.error && attempt.httpStatus === null ? ` (${attempt.error})` : ''}`).join('; ') || 'waiting'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}
