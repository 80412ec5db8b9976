import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { makeReviewRepo } from './review-repo.js';
import { createSeededWorkspace, startTestServer, type ApiResponse, type TestServer } from './test-server.js';

/** A real server with a workspace whose forge is a fake GitHub serving one pull request, acme/math#7. */
export interface ForgeReviewWorkspace {
  server: TestServer;
  github: FakeGitHub;
  workspaceId: string;
  /** An API call under `/api/workspaces/<id>`. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  /** The pull request's page URL on the fake forge. */
  prUrl: string;
  dispose(): Promise<void>;
}

export async function startForgeReviewWorkspace(name: string, title = 'x'): Promise<ForgeReviewWorkspace> {
  const github = await startFakeGitHub();
  const server = await startTestServer();
  const workspaceId = (await createSeededWorkspace(server, name)).id;
  const made = await makeReviewRepo();
  const bareRoot = await mkdtemp(join(tmpdir(), 'cc-fake-gh-'));
  github.addPullRequest({ owner: 'acme', repo: 'math', number: 7, title, source: made.repo, bare: join(bareRoot, 'math.git'), baseBranch: 'main', headSha: made.featureSha, baseSha: made.mainSha });
  const api = <T = any>(method: string, path: string, body?: unknown) => server.api<T>(method, `/api/workspaces/${workspaceId}${path}`, body);
  await api('PATCH', '/settings', { githubApiBaseUrl: github.apiBaseUrl, githubWebBaseUrl: github.webBaseUrl, forgeTokens: { github: github.token } });
  return {
    server,
    github,
    workspaceId,
    api,
    prUrl: `${github.webBaseUrl}/acme/math/pull/7`,
    async dispose() {
      await server.dispose();
      await github.close();
      for (const path of [made.repo, bareRoot]) await rm(path, { recursive: true, force: true });
    },
  };
}
