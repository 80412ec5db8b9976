import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';
import { freshTestDatabase } from './test-database.js';

/** Whether a child process has neither exited nor been killed. */
export const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/**
 * The multi-process tests' deployment: a throw-away PostgreSQL database and one `serve --role api`
 * (with its own scripted model server, which nothing should call). A test adds its workers, model
 * servers and data roots to the lists; `close` kills what still runs and removes it all.
 */
export interface ApiProcessCluster {
  database: Awaited<ReturnType<typeof freshTestDatabase>>;
  apiProcess: ServeProcess;
  roots: string[];
  children: ChildProcess[];
  models: ScriptedModelServer[];
  close(): Promise<void>;
}

export async function startApiProcessCluster(): Promise<ApiProcessCluster> {
  const database = await freshTestDatabase();
  const apiModel = await startScriptedModelServer();
  const apiProcess = await startServeProcess({ ...apiModel.providerEnv, CONTROL_CENTER_DATABASE_URL: database.url }, ['--role', 'api', '--no-default-workspace']);
  const roots = [apiProcess.dataRoot];
  const children = [apiProcess.child];
  const models = [apiModel];
  return {
    database,
    apiProcess,
    roots,
    children,
    models,
    async close() {
      for (const child of children) if (isRunning(child)) child.kill('SIGKILL');
      await Promise.all(children.map((child) => (isRunning(child) ? new Promise((resolve) => child.once('exit', resolve)) : null)));
      for (const model of models) await model.close();
      for (const root of roots) await rm(root, { recursive: true, force: true });
      await database.drop();
    },
  };
}

/**
 * Starts the cluster before the file's tests (when `enabled`: a PostgreSQL server is configured) and
 * closes it after them; the returned function reads it inside a test.
 */
export function useApiProcessCluster(enabled: boolean): () => ApiProcessCluster {
  let cluster: ApiProcessCluster | undefined;
  beforeAll(async () => {
    if (enabled) cluster = await startApiProcessCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });
  return () => cluster!;
}
