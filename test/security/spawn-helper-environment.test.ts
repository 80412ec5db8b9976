import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SpawnHelper } from '../../src/sandbox/spawn-helper.js';
import { NodeWorktree } from '../../src/worktree/node-worktree.js';

const root = mkdtempSync(join(tmpdir(), 'cc-spawn-helper-env-'));
const spawner = new SpawnHelper();

afterAll(() => {
  spawner.close();
  rmSync(root, { recursive: true, force: true });
});

/**
 * The spawn helper forks every command of the server (bash tool, sandboxed git). It must not become a
 * way around environment sanitizing: the helper itself holds nothing but PATH, and a command sees
 * only the sanitized environment the server chose, never the server's secrets.
 */
describe('spawn helper environment (SEC: no credential reaches a command through the helper)', () => {
  it('a bash command run through the helper sees neither the server’s secrets nor anything the helper holds beyond PATH', async () => {
    process.env.CC_TEST_SERVER_SECRET = 'sk-server-secret';
    try {
      const worktree = new NodeWorktree(root, { spawnHelper: spawner });
      const result = await worktree.exec('env; cat /proc/$PPID/environ 2>/dev/null | tr "\\0" "\\n"', { timeoutMs: 30_000, maxOutputBytes: 100_000, signal: new AbortController().signal });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain('sk-server-secret');
      // The helper's own environment (read from outside, as the server's user): PATH, plus the IPC channel Node adds.
      const helperEnv = readFileSync(`/proc/${spawner.pid}/environ`, 'utf8').split('\0').filter(Boolean);
      expect(helperEnv.map((entry) => entry.split('=')[0]).sort()).toEqual(['NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE', 'PATH']);
    } finally {
      delete process.env.CC_TEST_SERVER_SECRET;
    }
  });
});
