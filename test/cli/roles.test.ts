import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkRole } from '../../src/services/process-role.js';
import { EMBEDDED_STORE } from '../../src/store/store-location.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

/** Roles other than `all` need the shared PostgreSQL store, refused at start by name. */
describe('process roles (NF-SCALE)', () => {
  it('checkRole accepts all on SQLite, refuses api and worker there, and refuses unknown roles', () => {
    expect(checkRole('all', EMBEDDED_STORE)).toBe('all');
    expect(() => checkRole('api', EMBEDDED_STORE)).toThrow(/api role needs a shared PostgreSQL store: give --database/);
    expect(() => checkRole('worker', EMBEDDED_STORE)).toThrow(/worker role needs a shared PostgreSQL store/);
    expect(() => checkRole('everything', { dialect: 'postgres', url: 'postgres://x/y' })).toThrow(/--role must be one of all, api, worker, not 'everything'/);
    expect(checkRole('api', { dialect: 'postgres', url: 'postgres://x/y' })).toBe('api');
  });

  it('`serve --role api` and `worker` without --database exit with the reason, before opening anything', async () => {
    const env = { ...process.env, CONTROL_CENTER_DATABASE_URL: '' };
    const api = await run(process.execPath, [...CLI, 'serve', '--role', 'api', '--port', '0', '--data-dir', '/nonexistent/cc-roles'], { env }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(api?.code).not.toBe(0);
    expect(api?.stderr).toContain('the api role needs a shared PostgreSQL store');
    const worker = await run(process.execPath, [...CLI, 'worker', '--data-dir', '/nonexistent/cc-roles'], { env }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(worker?.code).not.toBe(0);
    expect(worker?.stderr).toContain('the worker role needs a shared PostgreSQL store');
  }, 120_000);
});
