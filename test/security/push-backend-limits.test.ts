/**
 * SEC-11: `git http-backend`, and the unpack-objects/index-pack and hooks it runs for an agent's push,
 * runs within the process limits of every process an agent causes, and within a wall-clock timeout.
 * A pack that makes git allocate past the memory limit, and a push whose forwarding hangs (a real
 * remote whose own hook never ends), are stopped: the push gets the reason in git's own output, the
 * real remote is unchanged, the server keeps answering and no process of the push is left. The real
 * push route and authentication hook over HTTP, real git on both ends; the limits are made small
 * (48 MiB of memory, a 2 s timeout) so that a 160 MiB blob and a 30 s hook are enough.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookSession } from '../../src/core/hook-sessions.js';
import { discoverPushRemotes, gitPushEnvironment, GitPushProxy } from '../../src/git/git-push-proxy.js';
import { createAuthenticateHook } from '../../src/server/authenticate.js';
import { gitPushRoutes } from '../../src/server/routes/git-push-routes.js';
import { cgroupSupport } from '../../src/sandbox/process-cgroup.js';
import { ControlCenter } from '../../src/services/control-center.js';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { gitText as git, pushToOrigin, remoteRef } from '../support/proxied-push.js';
import { pollUntil } from '../support/wait-for.js';

const MIB = 1024 * 1024;
const IDENTITY = ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com'];
const support = await cgroupSupport();

let scratch: string;
let app: ControlCenter;
const servers: FastifyInstance[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cc-push-limits-'));
  app = await ControlCenter.open({ dataRoot: join(scratch, 'data'), env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, logger: pino({ level: 'silent' }) });
  await app.auth.initialize();
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await app?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The push route with `proxy`, and the server's health route, on a server of its own. */
async function startServer(proxy: GitPushProxy): Promise<string> {
  const server = Fastify();
  servers.push(server);
  server.setValidatorCompiler(validatorCompiler);
  server.setSerializerCompiler(serializerCompiler);
  server.addHook('onRequest', createAuthenticateHook(app.auth, app.runTokens, app.sessions, app.people));
  server.get('/healthz', { config: { access: 'public' } }, async () => ({ ok: true }));
  await server.register(gitPushRoutes(app, proxy));
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** A run whose gate allows every push, registered for `repoPath`'s remotes; the environment that routes its pushes to `url`. */
async function allowingRun(url: string, repoPath: string, name: string): Promise<{ env: NodeJS.ProcessEnv; done: () => void }> {
  const remotes = await discoverPushRemotes(repoPath);
  const runId = `run_${name}`;
  const token = app.runTokens.issue({ workspaceId: `ws_${name}`, runId, agentId: `agent_${name}` });
  const session: HookSession = {
    token,
    workspaceId: `ws_${name}`,
    runId,
    mode: 'chat',
    worktreePath: repoPath,
    gate: async () => ({ allow: true, decision: 'allow', reason: 'allowed for the test', decidedBy: { scope: 'default', ruleId: null }, classes: [] }),
    signal: new AbortController().signal,
    pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
    pushStagingDir: join(scratch, `staging-${name}`),
    decisions: [],
  };
  const unregister = app.hookSessions.register(session);
  return {
    env: { ...process.env, ...gitPushEnvironment(url, token, remotes) },
    done: () => {
      unregister();
      app.runTokens.revoke(runId);
    },
  };
}

/** Processes (other than this one) working in, or started with an environment naming, the test's scratch directory. */
function processesOfScratch(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(scratch) || readFileSync(`/proc/${name}/environ`, 'latin1').includes(scratch)) found.push(Number(name));
    } catch {
      // It ended between the listing and the read (or is not ours to read).
    }
  }
  return found;
}

/** `/healthz` asked every 50 ms while `work` runs: every answer's status. */
async function healthDuring<T>(url: string, work: Promise<T>): Promise<{ result: T; statuses: number[] }> {
  const statuses: number[] = [];
  let finished = false;
  const probing = (async () => {
    while (!finished) {
      statuses.push((await fetch(`${url}/healthz`)).status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const result = await work.finally(() => (finished = true));
  await probing;
  return { result, statuses };
}

describe('git http-backend limits (SEC-11)', () => {
  it.skipIf(support.kind === 'none' || (support.kind === 'v1' && support.memory === null))(
    'a pack whose unpacking allocates past the memory limit is stopped: git prints why, the remote is unchanged, health answers, nothing is left; a small push then lands',
    async () => {
      const url = await startServer(new GitPushProxy(app.hookSessions, { backend: { limits: { memoryBytes: 48 * MIB } } }));
      const { repoPath, remotePath } = await makeRepoWithRemote(join(scratch, 'memory'));
      const base = git(repoPath, 'rev-parse', 'HEAD');
      // Zeros: a pack of a few hundred KiB, which git unpacks into one 160 MiB allocation (a blob under core.bigFileThreshold is held whole).
      await writeFile(join(repoPath, 'zeros.bin'), Buffer.alloc(160 * MIB));
      git(repoPath, 'add', 'zeros.bin');
      git(repoPath, ...IDENTITY, 'commit', '-q', '-m', 'zeros');
      const run = await allowingRun(url, repoPath, 'memory');
      try {
        const { result: bomb, statuses } = await healthDuring(url, pushToOrigin(repoPath, run.env, 'HEAD:refs/heads/bomb'));
        expect(bomb.code).not.toBe(0);
        expect(bomb.stderr).toMatch(/push stopped: memory limit reached: .*48 MiB.*git http-backend and every process it started were stopped/);
        expect(remoteRef(remotePath, 'refs/heads/bomb')).toBeNull();
        expect(statuses.length).toBeGreaterThan(0);
        expect(statuses.every((status) => status === 200)).toBe(true);
        await pollUntil(async () => processesOfScratch(), (pids) => pids.length === 0, 10_000);

        const small = await pushToOrigin(repoPath, run.env, `${base}:refs/heads/small`);
        expect(small.code, small.stderr).toBe(0);
        expect(remoteRef(remotePath, 'refs/heads/small')).toBe(base);
      } finally {
        run.done();
      }
    },
    90_000,
  );

  it('a push whose forwarding hangs is stopped at the timeout with every process it started: git prints why, the remote is unchanged, health answers', async () => {
    const url = await startServer(new GitPushProxy(app.hookSessions, { backend: { timeoutMs: 2_000 } }));
    const { repoPath, remotePath } = await makeRepoWithRemote(join(scratch, 'timeout'));
    // The real remote never answers the forwarded push: its own hook sleeps far past the timeout.
    await writeFile(join(remotePath, 'hooks', 'pre-receive'), '#!/bin/sh\nsleep 30\n');
    await chmod(join(remotePath, 'hooks', 'pre-receive'), 0o755);
    git(repoPath, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'next');
    const run = await allowingRun(url, repoPath, 'timeout');
    try {
      const { result: push, statuses } = await healthDuring(url, pushToOrigin(repoPath, run.env, 'HEAD:refs/heads/slow'));
      expect(push.code).not.toBe(0);
      expect(push.stderr).toMatch(/push stopped: git http-backend ran longer than 2 s and was stopped with every process it started/);
      expect(remoteRef(remotePath, 'refs/heads/slow')).toBeNull();
      expect(statuses.every((status) => status === 200)).toBe(true);
      // The remote's sleeping hook was a process of the push: it is gone too.
      await pollUntil(async () => processesOfScratch(), (pids) => pids.length === 0, 10_000);
    } finally {
      run.done();
    }
  }, 90_000);
});
