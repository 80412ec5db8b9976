import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../src/services/control-center.js';
import { findRun } from '../../src/store/repositories/run-repository.js';
import { postgresEnabled } from '../support/dispatch-pair.js';
import { pollUntil } from '../support/plan-server-fixtures.js';
import { startWorkerProcess } from '../support/serve-process.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { freshTestDatabase } from '../support/test-database.js';
import { makeDataRoot } from '../support/test-server.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Runs the CLI to its exit; resolves with its exit code and output (it is expected to refuse). */
async function refused(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [...CLI, ...args], { env: { ...process.env, CONTROL_CENTER_DATABASE_URL: '', ...env } }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

/**
 * NF-SCALE: the run queue's tunings — the dispatch sweep's grace, the steal delay, the
 * prune delay and the concurrent-run limit — are flags of `worker` and `serve` (and CONTROL_CENTER_*
 * variables). A bad value stops the process before it opens anything, naming the flag or variable.
 */
describe('run-queue flags of worker and serve (NF-SCALE)', () => {
  it('refuses a value that is not a whole number within range, naming the flag, before opening anything', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'cc-flags-'));
    cleanups.push(() => rm(parent, { recursive: true, force: true }));
    const dataDir = join(parent, 'never-created');
    // Each case is a child process (a few seconds each on a loaded machine): one per flag shape and
    // source; the ranges of every flag are covered in process by run-queue-options.test.ts.
    const cases: { args: string[]; env?: Record<string, string>; names: string }[] = [
      { args: ['worker', '--dispatch-grace-seconds', '0'], names: "option '--dispatch-grace-seconds <s>' argument '0' is invalid" },
      { args: ['serve', '--port', '0', '--max-queued-runs', 'many'], names: "option '--max-queued-runs <n>' argument 'many' is invalid" },
      {
        args: ['worker'],
        env: { CONTROL_CENTER_RUN_STEAL_SECONDS: 'soon' },
        names: "option '--run-steal-seconds <s>' value 'soon' from env 'CONTROL_CENTER_RUN_STEAL_SECONDS' is invalid",
      },
    ];
    const results = await Promise.all(cases.map(({ args, env }) => refused([...args, '--data-dir', dataDir], env)));
    for (const [index, { args, names }] of cases.entries()) {
      expect(results[index]!.code, args.join(' ')).toBe(1);
      expect(results[index]!.stderr).toContain(names);
      expect(results[index]!.stderr).toMatch(/must be a whole number of (seconds|runs), 1–\d+/);
    }
    // Refused while parsing: the data root was never created.
    expect(existsSync(dataDir)).toBe(false);
  }, 240_000);

  it('lists the flags and their variables in the help of both commands', async () => {
    const helps = await Promise.all(['worker', 'serve'].map(async (command) => ({ command, stdout: (await run(process.execPath, [...CLI, command, '--help'])).stdout })));
    for (const { command, stdout } of helps) {
      for (const flag of ['--dispatch-grace-seconds', '--run-steal-seconds', '--process-prune-seconds', '--max-queued-runs']) expect(stdout, command).toContain(flag);
      expect(stdout.replace(/\s+/g, ' ')).toContain('(env: CONTROL_CENTER_DISPATCH_GRACE_SECONDS)');
    }
  }, 180_000);
});

/** A worker child that the file's clean-up kills. */
async function startWorkerKilledAtEnd(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = await startWorkerProcess(args, env);
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  return child;
}

describe.skipIf(!postgresEnabled)('run-queue flags taking effect on PostgreSQL (NF-SCALE)', () => {
  it('a worker started with --dispatch-grace-seconds 1 enqueues a run whose enqueue never happened within seconds, not after the 60 s default', async () => {
    const database = await freshTestDatabase();
    cleanups.push(() => database.drop());
    const model: ScriptedModelServer = await startScriptedModelServer();
    cleanups.push(() => model.close());
    const roots = [await makeDataRoot(), await makeDataRoot()];
    cleanups.push(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));
    const api = await ControlCenter.open({ dataRoot: roots[0]!, database: database.url, role: 'api', env: model.providerEnv });
    cleanups.push(() => api.close());
    await api.recover();
    const workspaceId = (await api.workspaces.create('Flags')).id;
    await api.seeding.seed(workspaceId);
    const spaceId = (await api.spaces.create(workspaceId, { name: 'Work' })).id;
    model.scriptFor('flag grace turn', reply().text('answered after a one-second grace'));
    // The API process "dies" between recording the run and enqueueing it: its enqueue never returns.
    api.executor.dispatchTo(() => new Promise(() => undefined));
    const conversationId = (await api.spaces.createConversation(workspaceId, spaceId, { title: 'Grace' })).id;
    void api.turns.post(workspaceId, conversationId, { text: 'flag grace turn' }, 'op_test');
    const db = (await api.workspaces.handle(workspaceId)).database.db;
    const [dispatch] = await pollUntil(() => db.selectFrom('run_dispatches').selectAll().execute(), (rows) => rows.length === 1, 10_000);
    const runId = dispatch!.run_id;
    const posted = Date.now();

    await startWorkerKilledAtEnd(['--data-dir', roots[1]!, '--lease-seconds', '3', '--grace-seconds', '0', '--dispatch-grace-seconds', '1'], {
      ...model.providerEnv,
      CONTROL_CENTER_DATABASE_URL: database.url,
    });
    await pollUntil(async () => (await findRun(db, runId))?.state, (state) => state === 'completed', 40_000);
    // With the default grace (60 s) the sweep would not have touched the row yet.
    expect(Date.now() - posted).toBeLessThan(45_000);
    expect(model.requests.filter((request) => JSON.stringify(request).includes('flag grace turn'))).toHaveLength(1);
    expect(await db.selectFrom('run_dispatches').selectAll().execute()).toEqual([]);
  }, 120_000);
});
