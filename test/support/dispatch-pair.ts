import { rm } from 'node:fs/promises';
import pg from 'pg';
import { ControlCenter, type ControlCenterOptions } from '../../src/services/control-center.js';
import { PG_BOSS_SCHEMA } from '../../src/services/pipelines/pg-boss-job-queue.js';
import { guardPoolConnections } from '../../src/store/connection-error-guard.js';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';
import { freshTestDatabase } from './test-database.js';
import { makeDataRoot } from './test-server.js';

/** Whether the PostgreSQL-only run-queue suites run: under CC_TEST_POSTGRES_URL or CC_TEST_DATABASE=postgres. */
export const postgresEnabled = Boolean(process.env.CC_TEST_POSTGRES_URL) || process.env.CC_TEST_DATABASE === 'postgres';

/**
 * An API-role and a worker-role control center on one fresh PostgreSQL database, each with
 * its own data root, their models the scripted model server; a seeded workspace with one space, and
 * the test's own connection to read pg-boss's job table.
 */
export interface DispatchPair {
  api: ControlCenter;
  worker: ControlCenter;
  model: ScriptedModelServer;
  workspaceId: string;
  spaceId: string;
  /** The workspace's database, as the API process sees it. */
  db(): Promise<Awaited<ReturnType<ControlCenter['workspaces']['handle']>>['database']['db']>;
  /** The states of the pg-boss jobs that carry this run. */
  jobStates(runId: string): Promise<string[]>;
  /** The id of the one job that carries `runId`. */
  jobIdOf(runId: string): Promise<string>;
  close(): Promise<void>;
}

/** The clients of the worker's pools when the pair is started with `markWorkerClients`. */
export class WorkerClient extends pg.Client {}

/** Whether `client` is one of the worker's (a pair started with `markWorkerClients`): its statements told from the API's. */
export function isWorkerClient(client: pg.Client): boolean {
  return client instanceof WorkerClient;
}

export async function startDispatchPair(options: {
  workspaceName: string;
  worker: Pick<ControlCenterOptions, 'jobLeaseMs' | 'queuePollMs' | 'dispatchGraceMs'>;
  /** Runs on the API process before the worker starts (e.g. to hold its enqueues). */
  beforeWorker?: (api: ControlCenter) => void;
  /** The worker's pools make {@link WorkerClient}s (the API's pools are open by then). */
  markWorkerClients?: boolean;
}): Promise<DispatchPair> {
  const database = await freshTestDatabase();
  const sql = guardPoolConnections(new pg.Pool({ connectionString: database.url, max: 1 }));
  const model = await startScriptedModelServer();
  const roots = [await makeDataRoot(), await makeDataRoot()];
  const api = await ControlCenter.open({ dataRoot: roots[0]!, database: database.url, role: 'api', env: model.providerEnv });
  await api.recover();
  const workspaceId = (await api.workspaces.create(options.workspaceName)).id;
  await api.seeding.seed(workspaceId);
  const spaceId = (await api.spaces.create(workspaceId, { name: 'Work' })).id;
  options.beforeWorker?.(api);
  const module = pg as unknown as { Pool: typeof pg.Pool };
  const PlainPool = pg.Pool;
  if (options.markWorkerClients) {
    module.Pool = class WorkerPool extends PlainPool {
      constructor(config?: pg.PoolConfig) {
        super({ ...config, Client: WorkerClient } as pg.PoolConfig);
      }
    };
  }
  let worker: ControlCenter;
  try {
    worker = await ControlCenter.open({ dataRoot: roots[1]!, database: database.url, role: 'worker', env: model.providerEnv, ...options.worker });
    await worker.auth.initialize();
    await worker.recover();
  } finally {
    module.Pool = PlainPool;
  }
  return {
    api,
    worker,
    model,
    workspaceId,
    spaceId,
    db: async () => (await api.workspaces.handle(workspaceId)).database.db,
    jobStates: async (runId) =>
      (await sql.query<{ state: string }>(`select state from ${PG_BOSS_SCHEMA}.job where data->'payload'->>'runId' = $1`, [runId])).rows.map((row) => row.state),
    jobIdOf: async (runId) => {
      const { rows } = await sql.query<{ id: string }>(`select id from ${PG_BOSS_SCHEMA}.job where data->'payload'->>'runId' = $1`, [runId]);
      if (rows.length !== 1) throw new Error(`${rows.length} jobs carry run ${runId}`);
      return rows[0]!.id;
    },
    async close() {
      await worker.close();
      await api.close();
      await model.close();
      await sql.end();
      for (const root of roots) await rm(root, { recursive: true, force: true });
      await database.drop();
    },
  };
}
