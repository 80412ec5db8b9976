import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PushGrants } from '../../src/core/push-grants.js';
import { loadShellParser } from '../../src/core/shell/shell-parser.js';
import { proxyPush } from '../../src/git/git-push-proxy.js';
import { makeRepoWithRemote } from '../support/claude-code-fixture.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

/**
 * POL-6: an approval of `git push origin main` is a grant for the ref git resolves `main` to when a
 * branch is pushed, refs/heads/main — never refs/tags/main or a ref in another namespace. Full refs
 * match exactly.
 */

let fixture: HarnessFixture | null = null;
const scratch: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const path of scratch.splice(0)) await rm(path, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);
const IDENTITY = '-c user.name=Agent -c user.email=agent@example.com';

function remoteRef(remotePath: string, ref: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', ref], { cwd: remotePath, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

async function nextApproval(seen: readonly string[] = []): Promise<any> {
  const event = await fixture!.operator!.waitFor(
    (candidate) => candidate.event === 'approval.requested' && candidate.data.data.status === 'pending' && !seen.includes(candidate.data.data.id),
    20_000,
  );
  return event.data.data;
}

describe('a push approval names one namespace (POL-6)', () => {
  it('an approved `git push origin main` does not cover a push, through the proxy, of refs/tags/main', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-push-namespace-'));
    scratch.push(dir);
    const { repoPath, remotePath } = await makeRepoWithRemote(dir);
    fixture = await startHarnessFixture({ space: { repoPath } });
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass: 'gitPush' }, decision: 'ask' })).status).toBe(201);
    // The script is unseen code the operator allows by prefix; the approved push never runs (`true ||`),
    // so its grant is still there when the script pushes to the other namespaces through the proxy.
    expect((await api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: './tag.sh' }, decision: 'allow' })).status).toBe(201);
    fixture.model.script(
      reply().tool('write', { path: 'tag.sh', content: `#!/usr/bin/env -S sh -e\ngit ${IDENTITY} commit --allow-empty -q -m "tagged"\ngit push origin HEAD:refs/tags/main\n` }),
      reply().tool('bash', { command: 'chmod +x tag.sh && { true || git push origin main; } && ./tag.sh' }),
      reply().text('done'),
    );
    const runId = await fixture.send('push');
    const first = await nextApproval();
    expect(first).toMatchObject({ kind: 'tool', runId, request: { toolName: 'bash', summary: expect.stringContaining('git push origin main') } });
    expect((await api('POST', `/approvals/${first.id}/decision`, { decision: 'approve' })).status).toBe(200);
    // The proxy's push of the tag is not the approved branch push: it is asked, and rejected it changes nothing.
    const second = await nextApproval([first.id]);
    expect(second).toMatchObject({ kind: 'tool', runId, request: { toolName: 'git-push-proxy', summary: expect.stringContaining('refs/tags/main') } });
    expect((await api('POST', `/approvals/${second.id}/decision`, { decision: 'reject', reason: 'a tag was never approved' })).status).toBe(200);
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls[1]).toMatchObject({ name: 'bash', executed: true, isError: true });
    expect(remoteRef(remotePath, 'refs/tags/main')).toBeNull();
  });
});

describe('push grant matching (POL-6)', () => {
  beforeAll(loadShellParser);
  const UPDATE = { old: '0'.repeat(40), new: '1'.repeat(40) };
  const push = (remote: string, ref: string, deleting = false) => proxyPush(remote, [deleting ? { old: UPDATE.new, new: UPDATE.old, ref } : { ...UPDATE, ref }]);

  it('a short name covers its branch only; a full ref covers exactly itself', () => {
    const grants = new PushGrants();
    for (const other of ['refs/tags/main', 'refs/notes/main', 'refs/remotes/main', 'refs/heads/main/x', 'refs/main']) {
      grants.grant('git push origin main');
      expect(grants.take(push('origin', other)), other).toBeNull();
      expect(grants.take(push('origin', 'refs/heads/main'))).toBe('git push origin main');
    }
    grants.grant('git push origin --delete release');
    expect(grants.take(push('origin', 'refs/tags/release', true))).toBeNull();
    expect(grants.take(push('origin', 'refs/heads/release', true))).toBe('git push origin --delete release');
    grants.grant('git push origin HEAD:refs/tags/v1');
    expect(grants.take(push('origin', 'refs/heads/v1'))).toBeNull();
    expect(grants.take(push('origin', 'refs/tags/v1'))).toBe('git push origin HEAD:refs/tags/v1');
  });
});
