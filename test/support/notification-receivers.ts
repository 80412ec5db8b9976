import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One request a local receiver got: its path, headers and raw body. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A local HTTP receiver standing in for a webhook endpoint (Slack, a chat bridge) or a browser push
 * service: it records every request and answers each path's requests with the statuses queued for
 * it (then 200), so a test can make the first attempt fail with a 500.
 */
export class LocalHttpReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly failures = new Map<string, number[]>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<LocalHttpReceiver> {
    let receiver: LocalHttpReceiver | null = null;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        receiver!.requests.push({ path, headers: request.headers, body: Buffer.concat(chunks) });
        const status = receiver!.failures.get(path)?.shift() ?? 201;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failed');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new LocalHttpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** The next requests to `path` get these statuses, in order. */
  failNext(path: string, ...statuses: number[]): void {
    this.failures.set(path, statuses);
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One message a local SMTP server accepted: envelope, the raw message, and the login used. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  user: string | null;
}

/** A real SMTP server (smtp-server) on 127.0.0.1, accepting a login and recording every message. */
export class LocalSmtpServer {
  readonly messages: ReceivedMail[] = [];
  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(credentials: { user: string; password: string }): Promise<LocalSmtpServer> {
    let local: LocalSmtpServer | null = null;
    const server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === credentials.user && auth.password === credentials.password) callback(null, { user: auth.username });
        else callback(new Error('invalid login'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          local!.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw: Buffer.concat(chunks).toString('utf8'),
            user: typeof session.user === 'string' ? session.user : null,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.server.address() as AddressInfo;
    local = new LocalSmtpServer(server, address.port);
    return local;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
