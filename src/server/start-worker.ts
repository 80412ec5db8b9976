import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { ControlCenter, type ControlCenterOptions } from '../services/control-center.js';
import { buildServer } from './build-server.js';

export interface StartWorkerOptions extends Omit<ControlCenterOptions, 'role'> {
  /** Operations port (`/healthz`, `/readyz`, `/metrics`); unset: the worker listens on nothing. */
  port?: number;
  host?: string;
  /** The runner endpoint's port on 127.0.0.1 (below); unset: any free port. */
  runnerPort?: number;
  logLevel?: string;
}

export interface RunningWorker {
  app: ControlCenter;
  /** The operations endpoint's URL when a port was given. */
  url: string | null;
  /** The runner endpoint's URL: what the runs this worker executes call back on. */
  runnerUrl: string;
  /**
   * Stops claiming; runs and nodes in flight get `graceMs` to finish, then nodes go back to the queue
   * and runs end `failed` with `stopCause` (the sentence their row keeps) when one is given.
   */
  close(graceMs?: number, stopCause?: string): Promise<void>;
}

/**
 * A worker process (`control-center worker`): claims and executes pipeline and plan nodes,
 * agent runs and due approval timeouts from the shared PostgreSQL queue. No API: only the operations endpoints, on a port when asked —
 * `/healthz`, `/readyz` (public) and `/metrics` (the worker's own operator token).
 */
export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const logger = options.logger ?? pino({ level: options.logLevel ?? 'info' });
  const app = await ControlCenter.open({ ...options, logger, role: 'worker' });
  await app.auth.initialize();
  await app.recover();
  // The runs a worker executes call back on their server — Claude Code's hooks, the git push
  // proxy, the model proxy (Grok, brokered keys) and the Control Center MCP server (every external
  // runner's product tools and completion contract). Those routes live where the run does, so the
  // worker serves them itself, on loopback only: its runners are its own child processes.
  const runner = await buildServer(app, { routes: 'runner', webDistDir: null });
  await runner.listen({ host: '127.0.0.1', port: options.runnerPort ?? 0 });
  const runnerUrl = `http://127.0.0.1:${(runner.server.address() as AddressInfo).port}`;
  app.executor.setServerUrl(runnerUrl);
  let http: Server | null = null;
  let url: string | null = null;
  if (options.port !== undefined) {
    http = createServer((request, response) => {
      // A failed answer (the database gone while /readyz or /metrics reads it) is a 503, never an
      // unhandled rejection that would end the worker and the turns it executes.
      void answerOperations(app, request.method ?? 'GET', request.url ?? '/', request.headers.authorization)
        .catch(() => refusal(503, 'unavailable', 'the worker could not answer: its store did not respond', 'path'))
        .then(({ status, type, body }) => {
          response.writeHead(status, { 'content-type': type });
          response.end(body);
        });
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve) => http!.listen(options.port, host, resolve));
    url = `http://${host}:${(http.address() as AddressInfo).port}`;
  }
  let closed = false;
  return {
    app,
    url,
    runnerUrl,
    async close(graceMs = 0, stopCause?: string) {
      if (closed) return;
      closed = true;
      if (http) await new Promise<void>((resolve) => http!.close(() => resolve()));
      // Runs in flight keep calling back during the grace period: the runner endpoint closes after them.
      await app.close({ graceMs, ...(stopCause ? { stopCause } : {}) });
      await runner.close();
    },
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The API's error shape (docs/api.md), so a client reads a worker's refusals the same way. */
function refusal(status: number, code: string, message: string, field: string): { status: number; type: string; body: string } {
  return { status, type: JSON_TYPE, body: JSON.stringify({ error: { code, message, field } }) };
}

async function answerOperations(app: ControlCenter, method: string, url: string, authorization: string | undefined): Promise<{ status: number; type: string; body: string }> {
  const path = url.split('?')[0];
  if (method !== 'GET') return refusal(405, 'method_not_allowed', 'a worker answers GET only', 'method');
  if (path === '/healthz') return { status: 200, type: JSON_TYPE, body: JSON.stringify({ ok: true, role: 'worker' }) };
  if (path === '/readyz') {
    const readiness = await app.operations.readiness();
    return { status: readiness.ready ? 200 : 503, type: JSON_TYPE, body: JSON.stringify(readiness) };
  }
  if (path === '/metrics') {
    const token = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
    // Metrics are the owner's, as on the API (TEAM-2): any token of the owner, the worker's operator-token file's among them.
    const principal = await app.auth.authenticate(token);
    if (!principal || principal.operatorId !== app.auth.firstOperatorId()) return refusal(401, 'unauthorized', 'the operator token of this worker\'s data root is required', 'authorization');
    return { status: 200, type: 'text/plain; version=0.0.4; charset=utf-8', body: await app.operations.metrics() };
  }
  return refusal(404, 'not_found', 'a worker serves only /healthz, /readyz and /metrics', 'path');
}
