/**
 * Writes the data root of this release as an upgrade fixture (NF-SCALE, operations): a real server
 * (scripted model) gets data of the common kinds — agents, spaces in two modes, a conversation with
 * a finished tool-using turn, policy rules, review gates, a pipeline, an MCP server — then stops, and
 * the data root is saved with `backupDataRoot` into <out-dir>. A later release's test restores it and
 * starts on it (test/store/upgrade-from-earlier-release.test.ts). Run it at each release, on that
 * release's checkout: `npx tsx scripts/write-upgrade-fixture.ts test/fixtures/upgrade/<name>`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupDataRoot } from '../src/services/operations/data-root-backup.js';
import { startHarnessFixture } from '../test/support/harness-fixture.js';
import { reply } from '../test/support/scripted-reply.js';

async function main(out: string): Promise<void> {
  const fixture = await startHarnessFixture({ operatorConnected: false });
  const { server, workspaceId: ws } = fixture;
  const must = async (method: string, path: string, body?: unknown) => {
    const answer = await server.api(method, `/api/workspaces/${ws}${path}`, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  try {
    const worktree = join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, 'greeting.txt'), 'hello world\n');
    fixture.model.script(
      reply().text('Reading the file.').tool('read', { path: 'greeting.txt' }).usage({ input: 120, output: 30 }),
      reply().tool('edit', { path: 'greeting.txt', oldText: 'world', newText: 'upgrade' }).usage({ input: 200, output: 20 }),
      reply().text('Done: the greeting now says hello upgrade.').usage({ input: 300, output: 12 }),
    );
    const runId = await fixture.send('Change the greeting.');
    const detail = await fixture.waitForRun(runId, 60_000);
    if (detail.run.state !== 'completed') throw new Error(`the turn did not complete: ${JSON.stringify(detail.run)}`);

    await must('POST', '/agents', { name: 'upgrade-reviewer', title: 'Reviewer', persona: 'Reads carefully.', skills: [], silenceTimeoutMinutes: 5 });
    await must('POST', '/spaces', { name: 'Planning room', mode: 'plan' });
    await must('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'command', prefix: 'curl' }, decision: 'deny' });
    // Gates are configured per repository: a small one of its own (its path is only recorded).
    const repo = mkdtempSync(join(tmpdir(), 'cc-upgrade-repo-'));
    execFileSync('git', ['init', '-q', repo]);
    await must('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'unit', command: 'sh check.sh' }] });
    rmSync(repo, { recursive: true, force: true });
    await must('POST', '/pipelines', { name: 'nightly', nodes: [{ key: 'hello', type: 'bashScript', script: 'echo hello' }] });
    await must('POST', '/mcp-servers', { name: 'notes', transport: 'http', url: 'https://mcp.example.com/mcp' });
  } finally {
    await server.stop();
    await fixture.model.close();
  }
  const manifest = await backupDataRoot(server.dataRoot, out);
  rmSync(server.dataRoot, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ workspaceId: ws, conversationId: fixture.conversationId, ...manifest }, null, 2)}\n`);
}

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: npx tsx scripts/write-upgrade-fixture.ts <out-dir>\n');
  process.exit(2);
}
main(out).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
