import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { ControlCenter, type ControlCenterOptions } from '../services/control-center.js';
import { withStartupLock } from '../store/startup-lock.js';
import { buildServer } from './build-server.js';

/** Pending connections the listening socket queues before accepting them (see the listen call). */
const LISTEN_BACKLOG = 4096;

export interface StartServerOptions extends ControlCenterOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Level of the logger created here when `logger` is not given (`silent` in tests). */
  logLevel?: string;
  /** Create a workspace named "Default" when none exists (the README's first-run experience). */
  ensureDefaultWorkspace?: boolean;
}

export interface RunningServer {
  app: ControlCenter;
  server: FastifyInstance;
  url: string;
  port: number;
  tokenCreated: boolean;
  close(): Promise<void>;
}

/** File in the data root that tells the CLI where the running server listens. */
export const SERVER_INFO_FILE = 'server.json';

/** Opens the data root, recovers from a crash, and listens on 127.0.0.1 by default. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  // One logger for the process, created first: the services and Fastify both write to it.
  const logger = options.logger ?? pino({ level: options.logLevel ?? 'info' });
  const app = await ControlCenter.open({ ...options, logger });
  const { created: tokenCreated } = await withStartupLock(app.registry.location, async () => {
    const token = await app.auth.initialize();
    if (options.ensureDefaultWorkspace && (await app.workspaces.list()).length === 0) {
      const workspace = await app.workspaces.create('Default');
      void app.seeding.seedInBackground(workspace.id);
    }
    return token;
  });
  await app.recover();
  const server = await buildServer(app);
  const host = options.host ?? '127.0.0.1';
  // NF-SCALE bursts: Node's default backlog (511) resets connections beyond it when ~1,000 clients
  // post at once; the kernel caps the figure at net.core.somaxconn (4096 on current Linux).
  await server.listen({ host, port: options.port ?? 4317, backlog: LISTEN_BACKLOG });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 4317);
  const url = `http://${host}:${port}`;
  app.executor.setServerUrl(url);
  app.notifications.setServerUrl(url);
  app.oidc.settings.setServerUrl(url);
  const infoFile = join(options.dataRoot, SERVER_INFO_FILE);
  await writeFile(infoFile, `${JSON.stringify({ url, pid: process.pid }, null, 2)}\n`);
  let closed = false;
  return {
    app,
    server,
    url,
    port,
    tokenCreated,
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await app.close();
      await rm(infoFile, { force: true });
    },
  };
}
