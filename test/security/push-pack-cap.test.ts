/**
 * SEC-10: an allowed push's pack is streamed to git, never held in memory, and stops at the pack cap:
 * past it git is stopped before receive-pack has the whole pack, so the forwarding hook never runs,
 * the real remote is unchanged, and the client gets 413 naming the limit. The real push route and the
 * real authentication hook over HTTP, real git on both ends; the cap is lowered to 4 MiB (the route's
 * `limits`) so the test pushes 8 MiB rather than 512.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookSession } from '../../src/core/hook-sessions.js';
import { discoverPushRemotes, gitPushEnvironment } from '../../src/git/git-push-proxy.js';
import { createAuthenticateHook } from '../../src/server/authenticate.js';
import { gitPushRoutes } from '../../src/server/routes/git-push-routes.js';
import { ControlCenter } from '../../src/services/control-center.js';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { gitText as git, pushToOrigin, remoteRef } from '../support/proxied-push.js';

const MIB = 1024 * 1024;
const IDENTITY = ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.com'];

let scratch: string;
let app: ControlCenter;
let server: FastifyInstance;
let url: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cc-pack-cap-'));
  app = await ControlCenter.open({ dataRoot: join(scratch, 'data'), env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, logger: pino({ level: 'silent' }) });
  await app.auth.initialize();
  server = Fastify();
  server.setValidatorCompiler(validatorCompiler);
  server.setSerializerCompiler(serializerCompiler);
  server.addHook('onRequest', createAuthenticateHook(app.auth, app.runTokens, app.sessions, app.people));
  await server.register(gitPushRoutes(app, undefined, { compressedBytes: 64 * MIB, decompressedBytes: 4 * MIB }));
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await app?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('push pack cap (SEC-10)', () => {
  it('an allowed pack past the cap, plain or gzipped, is cut off with 413 and reaches nothing; a denied large push shows its reason; small pushes, plain and gzipped, go through', async () => {
    const { repoPath, remotePath } = await makeRepoWithRemote(join(scratch, 'repos'));
    const small = git(repoPath, 'rev-parse', 'HEAD');
    // Random bytes do not compress: the pack is as large as the file.
    await writeFile(join(repoPath, 'big.bin'), randomBytes(8 * MIB));
    git(repoPath, 'add', 'big.bin');
    git(repoPath, ...IDENTITY, 'commit', '-q', '-m', 'big');
    const remotes = await discoverPushRemotes(repoPath);
    const runId = 'run_pack_cap';
    const token = app.runTokens.issue({ workspaceId: 'ws_pack_cap', runId, agentId: 'agent_pack_cap' });
    const session: HookSession = {
      token,
      workspaceId: 'ws_pack_cap',
      runId,
      mode: 'chat',
      worktreePath: repoPath,
      // The rules allow every push but one to `denied`: what stops the others is the cap alone.
      gate: async (action) => {
        const denied = action.kind === 'command' && action.command.endsWith(' denied');
        return { allow: !denied, decision: denied ? 'deny' : 'allow', reason: denied ? 'not that branch' : 'allowed for the test', decidedBy: { scope: 'default', ruleId: null }, classes: [] };
      },
      signal: new AbortController().signal,
      pushRemotes: new Map(remotes.map((remote) => [remote.id, remote])),
      pushStagingDir: join(scratch, 'staging'),
      decisions: [],
    };
    const unregister = app.hookSessions.register(session);
    try {
      const env = { ...process.env, ...gitPushEnvironment(url, token, remotes) };
      const push = (refspec: string) => pushToOrigin(repoPath, env, refspec);
      const big = await push('HEAD:refs/heads/big');
      expect(big.code).not.toBe(0);
      expect(big.stderr).toMatch(/413/);
      expect(remoteRef(remotePath, 'refs/heads/big')).toBeNull();
      expect(session.decisions.map((entry) => entry.allow)).toEqual([true]);


      // Denied before its pack is read, and the unread pack dropped so git still prints the reason.
      const denied = await push('HEAD:refs/heads/denied');
      expect(denied.code).not.toBe(0);
      expect(denied.stderr).toMatch(/push refused \(decided by default\): not that branch/);
      expect(remoteRef(remotePath, 'refs/heads/denied')).toBeNull();

      // The same pack gzipped by hand (git sends large packs plain): decoded as it streams to git, and
      // cut at the decoded cap although its wire size is under the wire cap; a small gzipped push lands.
      const remote = remotes.find((entry) => entry.name === 'origin')!;
      const post = async (ref: string, commit: string, base: string) => {
        const pack = execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: repoPath, input: `${commit}\n^${base}\n`, maxBuffer: 64 * MIB });
        const line = `${'0'.repeat(40)} ${commit} ${ref}\0report-status\n`;
        const commands = Buffer.from(`${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}0000`);
        const response = await fetch(`${url}/api/git-push/${remote.id}/git-receive-pack`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-git-receive-pack-request', 'content-encoding': 'gzip' },
          body: gzipSync(Buffer.concat([commands, pack])),
        });
        return { status: response.status, text: await response.text() };
      };
      const gzippedBig = await post('refs/heads/gzipped-big', git(repoPath, 'rev-parse', 'HEAD'), small);
      expect(gzippedBig.status).toBe(413);
      expect(JSON.parse(gzippedBig.text).error).toMatchObject({ code: 'payload_too_large', field: 'decompressedBytes' });
      expect(remoteRef(remotePath, 'refs/heads/gzipped-big')).toBeNull();
      // A commit on top of what the remote has (the big one never reached it).
      const followUp = git(repoPath, ...IDENTITY, 'commit-tree', `${small}^{tree}`, '-p', small, '-m', 'small follow-up');
      const gzippedSmall = await post('refs/heads/gzipped-small', followUp, small);
      expect(gzippedSmall.status, gzippedSmall.text).toBe(200);
      expect(gzippedSmall.text).toContain('ok refs/heads/gzipped-small');
      expect(remoteRef(remotePath, 'refs/heads/gzipped-small')).toBe(followUp);

      const fine = await push(`${small}:refs/heads/small`);
      expect(fine.code, fine.stderr).toBe(0);
      expect(remoteRef(remotePath, 'refs/heads/small')).toBe(small);
    } finally {
      unregister();
      app.runTokens.revoke(runId);
    }
  }, 60_000);
});
