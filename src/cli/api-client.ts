import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OPERATOR_TOKEN_FILE } from '../services/operator-auth.js';
import { SERVER_INFO_FILE } from '../server/start-server.js';

export interface ClientOptions {
  url?: string;
  token?: string;
  dataDir: string;
}

/**
 * The API's problem in a person's words. A schema refusal arrives as "<field>: <zod's words>": the
 * field is said once (the caller prefixes it), and zod's enum wording — `Invalid option: expected one
 * of "agent"|"space"` — becomes "must be one of agent, space", its bounds "must be at least 1".
 */
function plainProblem(message: string, field: string | undefined): string {
  const alone = field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
  const choices = /^Invalid option: expected one of (.+)$/.exec(alone);
  if (choices) return `must be one of ${choices[1]!.split('|').map((choice) => choice.replace(/^"|"$/g, '')).join(', ')}`;
  // "Too small: expected number to be >=1", "Too big: expected string to have <=200 characters".
  const bound = /^Too (small|big): expected \w+ to (?:be|have) [<>]=?(\d+)( \w+)?$/.exec(alone);
  if (bound) return `must ${bound[3] ? 'have' : 'be'} at ${bound[1] === 'small' ? 'least' : 'most'} ${bound[2]}${bound[3] ?? ''}`;
  return alone;
}

/**
 * An error the API answered with. Its message is what a person reads: "<field>: <problem>" when the
 * API named the field at fault, else the problem alone — no codes, no HTTP status unless that is all there is.
 */
export class ApiRequestError extends Error {
  /** The problem alone, without the field (for a caller that names the field its own way, e.g. as a flag). */
  readonly problem: string;
  readonly field: string | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const error = (body as { error?: { message?: string; field?: string } } | null)?.error;
    const problem = error?.message ? plainProblem(error.message, error.field) : `the server answered HTTP ${status}`;
    super(error?.field ? `${error.field}: ${problem}` : problem);
    this.problem = problem;
    this.field = error?.field;
  }
}

/** A small JSON client for the CLI: finds the server and token through the data directory. */
export class ApiClient {
  private constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  static async connect(options: ClientOptions): Promise<ApiClient> {
    const url =
      options.url ??
      process.env.CONTROL_CENTER_URL ??
      (await readFile(join(options.dataDir, SERVER_INFO_FILE), 'utf8').then(
        (text) => (JSON.parse(text) as { url: string }).url,
        () => null,
      ));
    if (!url) throw new Error(`no running server found in ${options.dataDir}; start one with 'control-center serve' or pass --url`);
    const token =
      options.token ??
      process.env.CONTROL_CENTER_TOKEN ??
      (await readFile(join(options.dataDir, OPERATOR_TOKEN_FILE), 'utf8').then(
        (text) => text.trim(),
        () => null,
      ));
    if (!token) throw new Error(`no operator token: pass --token or set CONTROL_CENTER_TOKEN`);
    return new ApiClient(url.replace(/\/$/, ''), token);
  }

  /**
   * Opens a server-sent events stream with the Bearer header (the stream takes no token in
   * its URL). The caller reads `response.body`; `lastEventId` resumes after a dropped connection.
   */
  async openStream(path: string, signal: AbortSignal, lastEventId?: number): Promise<Response> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) },
      signal,
    });
    if (!response.ok) {
      const text = await response.text();
      throw new ApiRequestError(response.status, text ? (JSON.parse(text) as unknown) : null);
    }
    return response;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (!response.ok) throw new ApiRequestError(response.status, parsed);
    return parsed as T;
  }
}
