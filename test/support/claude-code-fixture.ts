import { pino } from 'pino';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AdapterId } from '../../src/schemas/agent.js';
import type { AgentTransport } from '../../src/adapters/agent-transport.js';
import { ClaudeCodeTransport, type ClaudeCodeTransportOptions } from '../../src/adapters/claude-code/claude-code-transport.js';
import type { HookDecisionRecord } from '../../src/core/hook-sessions.js';
import { buildServer } from '../../src/server/build-server.js';
import { ControlCenter } from '../../src/services/control-center.js';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';
import { SseClient } from './sse-client.js';
import { checkResponseContract } from './response-contract.js';

/**
 * A real Control Center (the lead's composition root, HTTP API, `/mcp`, run executor) with this
 * adapter's routes registered when the server does not have them yet, the Claude Code transport
 * registered under `claude-code`, the scripted model server as the model, a workspace with a space
 * and a conversation, and an agent running on Claude Code. Everything is real but the model.
 */
export interface ClaudeCodeFixture {
  model: ScriptedModelServer;
  app: ControlCenter;
  server: FastifyInstance;
  url: string;
  token: string;
  dataRoot: string;
  workspaceId: string;
  workspaceDir: string;
  spaceId: string;
  conversationId: string;
  agentId: string;
  /** The bare repository the space's repo pushes to (when made with `repo: true`). */
  remotePath: string | null;
  repoPath: string | null;
  operator: SseClient | null;
  /** Every decision a hook or the push proxy made, across runs (copied when sessions end). */
  decisions: HookDecisionRecord[];
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Posts a message to the Claude Code agent; returns the run id. */
  send(text: string): Promise<string>;
  waitForRun(runId: string, timeoutMs?: number): Promise<any>;
  /** The conversation's worktree path (after a first run). */
  worktreePath(): string;
  setMode(mode: 'chat' | 'plan' | 'review' | 'orchestrate', autonomy?: string): Promise<void>;
  dispose(): Promise<void>;
}

export interface ClaudeCodeFixtureOptions {
  mode?: 'chat' | 'plan' | 'review' | 'orchestrate';
  autonomy?: string;
  /** Give the space a git repository with a local bare remote `origin`. */
  repo?: boolean;
  operatorConnected?: boolean;
  transport?: Omit<ClaudeCodeTransportOptions, 'hookSessions'>;
  /** Extra variables in the server's environment (what the runner must NOT inherit, for example). */
  env?: Record<string, string>;
  /** Run the agent on another transport (the relay providers): its adapter id and how to build it. */
  adapter?: { id: Exclude<AdapterId, 'claude-code'>; transport: (app: ControlCenter, dataRoot: string) => AgentTransport };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

export async function makeRepoWithRemote(root: string): Promise<{ repoPath: string; remotePath: string }> {
  const remotePath = join(root, 'remote.git');
  const repoPath = join(root, 'repo');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remotePath]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repoPath]);
  git(repoPath, 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  git(repoPath, 'remote', 'add', 'origin', remotePath);
  git(repoPath, 'push', '--quiet', 'origin', 'main');
  return { repoPath, remotePath };
}

export async function startClaudeCodeFixture(options: ClaudeCodeFixtureOptions = {}): Promise<ClaudeCodeFixture> {
  const model = await startScriptedModelServer();
  const dataRoot = await mkdtemp(join(tmpdir(), 'cc-adapter-'));
  const app = await ControlCenter.open({ dataRoot, env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...model.providerEnv, ...options.env }, modelMaxRetries: 0, logger: pino({ level: 'silent' }) });
  await app.auth.initialize();
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  app.executor.setServerUrl(url);
  // Replaces the default registration when a test needs other transport options.
  app.executor.registerTransport(new ClaudeCodeTransport({ hookSessions: app.hookSessions, hiddenPaths: [dataRoot], ...options.transport }));
  if (options.adapter) app.executor.registerTransport(options.adapter.transport(app, dataRoot));
  const token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : null;
    checkResponseContract(server, method, path, response.status, parsed);
    return { status: response.status, body: parsed };
  };
  const decisions: HookDecisionRecord[] = [];
  const workspaceIdRef = { current: '' };
  // Sessions end with their run; keep what they decided for assertions.
  const stopRecording = app.hookSessions.onSessionEnded((session) => {
    if (session.workspaceId === workspaceIdRef.current) decisions.push(...session.decisions);
  });

  let repoPath: string | null = null;
  let remotePath: string | null = null;
  if (options.repo) ({ repoPath, remotePath } = await makeRepoWithRemote(dataRoot));
  const workspace = await api('POST', '/api/workspaces', { name: 'Adapter' });
  if (workspace.status !== 201) throw new Error(`workspace: ${JSON.stringify(workspace.body)}`);
  await app.seeding.settle();
  const workspaceId = workspace.body.id as string;
  workspaceIdRef.current = workspaceId;
  const space = await api('POST', `/api/workspaces/${workspaceId}/spaces`, {
    name: 'Work',
    mode: options.mode ?? 'chat',
    ...(options.autonomy ? { autonomy: options.autonomy } : {}),
    ...(repoPath ? { repoPath } : {}),
  });
  if (space.status !== 201) throw new Error(`space: ${JSON.stringify(space.body)}`);
  const conversation = await api('POST', `/api/workspaces/${workspaceId}/spaces/${space.body.id}/conversations`, { title: 'Main' });
  const agent = await api('POST', `/api/workspaces/${workspaceId}/agents`, { name: 'coder', title: 'Coder', adapterId: options.adapter?.id ?? 'claude-code' });
  if (agent.status !== 201) throw new Error(`agent: ${JSON.stringify(agent.body)}`);
  const operator = options.operatorConnected === false ? null : await SseClient.open(`${url}/api/workspaces/${workspaceId}/events`, { authorization: `Bearer ${token}` });
  const fixture: ClaudeCodeFixture = {
    model,
    app,
    server,
    url,
    token,
    dataRoot,
    workspaceId,
    workspaceDir: workspace.body.dataDir,
    spaceId: space.body.id,
    conversationId: conversation.body.id,
    agentId: agent.body.id,
    remotePath,
    repoPath,
    operator,
    decisions,
    api,
    async send(text) {
      const response = await api('POST', `/api/workspaces/${workspaceId}/conversations/${conversation.body.id}/messages`, { text, agentId: agent.body.id });
      if (response.status !== 202) throw new Error(`post failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.run.id;
    },
    async waitForRun(runId, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const detail = await api('GET', `/api/workspaces/${workspaceId}/runs/${runId}`);
        if (detail.status === 200 && ['completed', 'failed', 'cancelled'].includes(detail.body.run.state) && !app.activeRuns.get(runId)) return detail.body;
        if (Date.now() > deadline) throw new Error(`run ${runId} did not end: ${JSON.stringify(detail.body?.run)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    worktreePath() {
      return join(workspace.body.dataDir, 'worktrees', conversation.body.id);
    },
    async setMode(mode, autonomy) {
      const response = await api('PATCH', `/api/workspaces/${workspaceId}/spaces/${space.body.id}`, { mode, ...(autonomy ? { autonomy } : {}) });
      if (response.status !== 200) throw new Error(`mode: ${JSON.stringify(response.body)}`);
    },
    async dispose() {
      stopRecording();
      operator?.close();
      await server.close();
      await app.close();
      await model.close();
      await rm(dataRoot, { recursive: true, force: true });
    },
  };
  return fixture;
}
