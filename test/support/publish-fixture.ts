import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { startHarnessFixture, type HarnessFixture } from './harness-fixture.js';
import { reply } from './scripted-model-server.js';

/** Runs git in a test's own repository (a trusted place), with a fixed identity. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).trim();
}

/**
 * CHG-2 tests: a real server (built-in harness, scripted model) whose space's repository has `origin`
 * on a fake GitHub (`acme/app`, a real bare repository served over git's HTTP), the workspace's forge
 * settings pointing at it, and a conversation ready to commit work.
 */
export interface PublishFixture {
  fixture: HarnessFixture;
  github: FakeGitHub;
  /** The user's repository (`main` checked out, README.md and app.txt committed). */
  repoPath: string;
  /** The forge's bare repository behind `origin`. */
  barePath: string;
  /** The commit `main` started at (the conversation's base). */
  baseSha: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** One turn in which the agent writes `files` and commits them on the conversation's branch. */
  commitTurn(message: string, files: Record<string, string>): Promise<void>;
  /** The conversation's branch `cc/<conversation>` in the user's repository. */
  branchSha(): string;
  dispose(): Promise<void>;
}

/** A user's repository with `origin` on the fake GitHub's `acme/app` (a real bare repository it serves). */
export interface ForgeBackedRepository {
  scratch: string;
  repoPath: string;
  barePath: string;
  baseSha: string;
}

export async function makeForgeBackedRepository(github: FakeGitHub): Promise<ForgeBackedRepository> {
  const scratch = await mkdtemp(join(tmpdir(), 'cc-publish-'));
  const repoPath = join(scratch, 'repo');
  const barePath = join(scratch, 'forge', 'app.git');
  execFileSync('git', ['init', '-q', '-b', 'main', repoPath]);
  await writeFile(join(repoPath, 'README.md'), 'start\n');
  await writeFile(join(repoPath, 'app.txt'), 'one\ntwo\nthree\n');
  git(repoPath, 'add', '.');
  git(repoPath, 'commit', '-q', '-m', 'initial');
  const baseSha = git(repoPath, 'rev-parse', 'HEAD');
  git(scratch, 'clone', '-q', '--bare', repoPath, barePath);
  github.addRepository({ owner: 'acme', repo: 'app', bare: barePath });
  git(repoPath, 'remote', 'add', 'origin', `${github.webBaseUrl}/acme/app.git`);
  return { scratch, repoPath, barePath, baseSha };
}

/** The scripted model's replies for a turn in which the agent writes `files`, commits them and runs the tests. */
export function commitTurnReplies(message: string, files: Record<string, string>): ReturnType<typeof reply>[] {
  const writes = Object.entries(files).map(([path, content]) => reply().tool('write', { path, content }));
  const commit = `git add -A && git -c user.name=Agent -c user.email=agent@example.com commit -q -m ${JSON.stringify(message)}`;
  return [...writes, reply().tool('bash', { command: commit }), reply().tool('bash', { command: 'npm test --if-present' }), reply().text('done')];
}

export async function startPublishFixture(options: { conversationTitle?: string } = {}): Promise<PublishFixture> {
  const github = await startFakeGitHub();
  const { scratch, repoPath, barePath, baseSha } = await makeForgeBackedRepository(github);
  const fixture = await startHarnessFixture({ space: { repoPath, autonomy: 'actFreely' }, operatorConnected: false });
  const api = <T = any>(method: string, path: string, body?: unknown) => fixture.server.api<T>(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
  const settings = await api('PATCH', '/settings', { githubApiBaseUrl: github.apiBaseUrl, githubWebBaseUrl: github.webBaseUrl, forgeTokens: { github: github.token } });
  if (settings.status !== 200) throw new Error(`settings: ${JSON.stringify(settings.body)}`);
  if (options.conversationTitle !== undefined) {
    const renamed = await api('PATCH', `/conversations/${fixture.conversationId}`, { title: options.conversationTitle });
    if (renamed.status !== 200) throw new Error(`rename: ${JSON.stringify(renamed.body)}`);
  }
  return {
    fixture,
    github,
    repoPath,
    barePath,
    baseSha,
    api,
    async commitTurn(message, files) {
      fixture.model.script(...commitTurnReplies(message, files));
      const runId = await fixture.send(message);
      const run = await fixture.waitForRun(runId, 60_000);
      if (run.run.state !== 'completed') throw new Error(`turn ended ${run.run.state}: ${run.run.error}`);
    },
    branchSha() {
      return git(repoPath, 'rev-parse', `refs/heads/cc/${fixture.conversationId}`);
    },
    async dispose() {
      await fixture.dispose();
      await github.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
