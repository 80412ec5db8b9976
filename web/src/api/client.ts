/** The one place that talks HTTP: bearer token, JSON, and the API's error shape. */
import { plainSentence, voiceOf } from '../ui/error-voice';
import { fieldWord } from '../ui/words';

const TOKEN_KEY = 'cc.operatorToken';

export interface ApiIssue {
  field: string;
  message: string;
  /** The kind of problem, when the route says (the pipeline validator's codes): lets a page word it. */
  code?: string;
}

/** `{ error: { code, message, field?, issues? } }` from the server, plus the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly issues: ApiIssue[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The message the server gave for `field` (or a nested path under it, like `skills.2`). */
  messageFor(field: string): string | null {
    const matches = (name: string | undefined) => name === field || (name?.startsWith(`${field}.`) ?? false);
    const issue = this.issues.find((entry) => matches(entry.field));
    if (issue) return plainSentence(issue.message);
    if (matches(this.field)) return plainSentence(this.message, this.field);
    return null;
  }
}

type UnauthorizedListener = (error: ApiError) => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Called whenever a request answers 401: the app drops the token and shows the sign-in screen. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token === null) localStorage.removeItem(TOKEN_KEY);
  else localStorage.setItem(TOKEN_KEY, token);
}

async function toApiError(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: fall through to a generic message
  }
  const error = (body as { error?: { code?: string; message?: string; field?: string; issues?: ApiIssue[] } } | null)?.error;
  if (error && typeof error.message === 'string') {
    return new ApiError(response.status, error.code ?? 'error', error.message, error.field, error.issues ?? []);
  }
  return new ApiError(response.status, 'http_error', `HTTP ${response.status} ${response.statusText}`.trim());
}

/** Sends one request; throws ApiError on any non-2xx answer (and on network failure, status 0). */
export async function request<T>(method: string, path: string, body?: unknown, token: string | null = getToken()): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch (cause) {
    throw new ApiError(0, 'network', `cannot reach the server (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  if (!response.ok) {
    const error = await toApiError(response);
    if (response.status === 401) for (const listener of unauthorizedListeners) listener(error);
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  delete: <T>(path: string, body?: unknown) => request<T>('DELETE', path, body),
};

/** A short human message for any thrown value, in the app's one voice for errors (ui/error-voice.ts). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return 'Cannot reach the server. Check that it is running, then try again.';
    if (isMissingRoute(error)) return error.message;
    // The token itself is the field: "Sign-in failed: invalid bearer token."
    if (error.status === 401) return `Sign-in failed: ${error.message.replace(/[.\s]+$/, '')}.`;
    return voiceOf(error.message, error.field, fieldWord);
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/** True when the route itself does not exist yet (404 from the not-found handler). */
export function isMissingRoute(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404 && error.code === 'not_found' && error.message.startsWith('no route for');
}
