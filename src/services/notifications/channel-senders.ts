import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import nodemailer from 'nodemailer';
import webpush from 'web-push';
import { pinnedLookup } from '../../tools/web/fetch-web-page.js';
import type { CheckedTarget } from './notification-target.js';

/** A slow receiver never holds a delivery longer than this (NTF-1). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** What every channel is sent: titles, ids and a link only — never a token, key or message body. */
export interface OutgoingNotification {
  deliveryId: string;
  kind: string;
  title: string;
  url: string;
  workspaceId: string | null;
}

export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
}

/** The header a receiver checks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the channel's secret. */
export const SIGNATURE_HEADER = 'x-control-center-signature';

export function signatureFor(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The Slack-compatible body (`text`, `blocks`) with our own fields beside it. */
export function webhookBody(notification: OutgoingNotification): string {
  const text = `${notification.title} — ${notification.url}`;
  return JSON.stringify({
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `*${notification.title}*\n<${notification.url}|Open in Control Center>` } }],
    kind: notification.kind,
    title: notification.title,
    url: notification.url,
    workspaceId: notification.workspaceId,
    deliveryId: notification.deliveryId,
  });
}

/**
 * POSTs to a checked target: to the addresses it was checked at when there are (the pinned lookup of
 * web_fetch), on a socket of its own. `stop` is aborted when the server stops, so a hanging receiver
 * never holds the shutdown up; a receiver that does not answer within the timeout fails the attempt.
 */
function post(target: CheckedTarget, headers: Record<string, string>, body: string | Buffer, stop: AbortSignal): Promise<AttemptOutcome> {
  const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const outgoing = send(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.any([timeout, stop]),
        agent: false,
        ...(target.addresses ? { lookup: pinnedLookup(target.addresses) } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The answer's body is not needed: only its status is logged.
        response.resume();
        const ok = status >= 200 && status < 300;
        resolve({ ok, httpStatus: status, error: ok ? null : `HTTP ${status}` });
      },
    );
    outgoing.on('error', (error) => resolve({ ok: false, httpStatus: null, error: timeout.aborted ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : error.message }));
    outgoing.end(body);
  });
}

export async function sendWebhook(target: CheckedTarget, secret: string, notification: OutgoingNotification, stop: AbortSignal): Promise<AttemptOutcome> {
  const body = webhookBody(notification);
  const timestamp = Math.floor(Date.now() / 1000);
  return post(target, { 'content-type': 'application/json', 'user-agent': 'control-center-notifications', [SIGNATURE_HEADER]: signatureFor(secret, timestamp, body) }, body, stop);
}

export interface SmtpAccount {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
  from: string;
}

/** One email: a subject, a text part and an HTML part. */
export interface OutgoingMail {
  subject: string;
  text: string;
  html: string;
}

/** Sends one email through the owner's SMTP account (notifications, invitation links). */
export async function sendMail(account: SmtpAccount, to: string, mail: OutgoingMail): Promise<AttemptOutcome> {
  const transport = nodemailer.createTransport({
    host: account.host,
    port: account.port,
    secure: account.secure,
    ...(account.user ? { auth: { user: account.user, pass: account.password ?? '' } } : {}),
    connectionTimeout: DELIVERY_TIMEOUT_MS,
    greetingTimeout: DELIVERY_TIMEOUT_MS,
    socketTimeout: DELIVERY_TIMEOUT_MS,
  });
  try {
    await transport.sendMail({ from: account.from, to, ...mail });
    return { ok: true, httpStatus: null, error: null };
  } catch (error) {
    return { ok: false, httpStatus: null, error: (error as Error).message };
  } finally {
    transport.close();
  }
}

export async function sendEmail(account: SmtpAccount, to: string, notification: OutgoingNotification): Promise<AttemptOutcome> {
  return sendMail(account, to, {
    subject: `[Control Center] ${notification.title}`,
    text: `${notification.title}\n\nOpen it: ${notification.url}\n`,
    html: `<p>${escapeHtml(notification.title)}</p><p><a href="${escapeHtml(notification.url)}">Open in Control Center</a></p>`,
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface PushSubscriptionTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** `mailto:` or `https:` — who the push service may contact about this sender. */
  subject: string;
}

/**
 * Web push: web-push encrypts the payload for the subscription (aes128gcm) and signs the VAPID
 * JWT; the request itself goes out through fetch so it shares the timeout and the log of the others.
 */
export async function sendPush(target: CheckedTarget, subscription: PushSubscriptionTarget, vapid: VapidKeys, notification: OutgoingNotification, stop: AbortSignal): Promise<AttemptOutcome> {
  let details: ReturnType<typeof webpush.generateRequestDetails>;
  try {
    details = webpush.generateRequestDetails(subscription, JSON.stringify({ title: notification.title, url: notification.url, kind: notification.kind, id: notification.deliveryId }), {
      vapidDetails: vapid,
      TTL: 24 * 60 * 60,
      contentEncoding: 'aes128gcm',
    });
  } catch (error) {
    return { ok: false, httpStatus: null, error: (error as Error).message };
  }
  const headers = Object.fromEntries(Object.entries(details.headers).map(([name, value]) => [name, String(value)]));
  return post(target, headers, details.body ?? Buffer.alloc(0), stop);
}
