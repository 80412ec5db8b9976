import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentTransport, TransportRunContext } from '../src/adapters/agent-transport.js';
import type { ProviderId } from '../src/llm/provider-ids.js';
import type { Agent } from '../src/schemas/agent.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../test/support/claude-code-fixture.js';
import { median, type BenchFigure } from './figure.js';

/**
 * A chat-mode turn's context for a relay transport benchmark, with a run token and an open broker
 * run (the model proxy meters it); the real policy engine decides each command (no approvals: the
 * benchmarks' commands are allowed by default). `close()` revokes the token and closes the run.
 */
export function benchRunContext(
  fixture: ClaudeCodeFixture,
  input: { runId: string; agent: Agent; worktree: string; scratch: string; provider: ProviderId | null },
): { context: TransportRunContext; close: () => void } {
  const token = fixture.app.runTokens.issue({ workspaceId: fixture.workspaceId, runId: input.runId, agentId: fixture.agentId });
  fixture.app.modelBroker.open(input.runId, fixture.workspaceId, input.provider);
  const context: TransportRunContext = {
    workspaceId: fixture.workspaceId,
    runId: input.runId,
    agent: input.agent,
    spaceId: fixture.spaceId,
    conversationId: null,
    mode: 'chat',
    autonomy: 'actWithApproval',
    prompt: 'go',
    history: [],
    worktreePath: input.worktree,
    systemPrompt: '',
    surfacedTools: [],
    mcp: { url: `${fixture.url}/mcp`, token },
    serverUrl: fixture.url,
    env: { PATH: process.env.PATH },
    workspaceDir: input.scratch,
    signal: new AbortController().signal,
    emit: () => undefined,
    gate: async (action) => {
      const verdict = await fixture.app.policy.decideCommand(fixture.workspaceId, { mode: 'chat', autonomy: 'actWithApproval', spaceId: fixture.spaceId, agentId: fixture.agentId, worktreeRoot: input.worktree }, action.kind === 'command' ? action.command : '', action.toolName);
      return { allow: verdict.decision === 'allow', decision: verdict.decision, reason: verdict.explanation, decidedBy: verdict.decidedBy, classes: verdict.classes };
    },
    setSandbox: () => undefined,
    previousSessionId: null,
    saveSessionId: async () => undefined,
  };
  return {
    context,
    close: () => {
      fixture.app.modelBroker.close(input.runId);
      fixture.app.runTokens.revoke(input.runId);
    },
  };
}

/** One timed chat turn of `transport` on a fresh bench context; fails loudly unless the turn completed. */
export async function timedTransportTurn(fixture: ClaudeCodeFixture, transport: AgentTransport, input: { runId: string; agent: Agent; worktree: string; scratch: string }): Promise<number> {
  const { context, close } = benchRunContext(fixture, { ...input, provider: transport.modelProvider?.(input.agent) ?? null });
  const started = performance.now();
  const result = await transport.run(context);
  const wallMs = performance.now() - started;
  close();
  if (result.outcome !== 'completed') throw new Error(`bench turn (${transport.id}) failed: ${result.error}`);
  return wallMs;
}

/** The resident size of a process, in MB (Linux `/proc`). */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

/** A transport's median turn (`<metric>_ms`) and its overhead over the bare runtime's median (`<metric>_overhead_ms`). */
export function turnFigures(metric: string, bare: number[], measured: number[]): BenchFigure[] {
  return [
    { metric: `${metric}_ms`, value: median(measured), unit: 'ms' },
    { metric: `${metric}_overhead_ms`, value: median(measured) - median(bare), unit: 'ms' },
  ];
}

/** What a relay benchmark measures in: a real server, a scratch folder with an empty worktree, the agent. */
export interface RelayBenchScope {
  fixture: ClaudeCodeFixture;
  scratch: string;
  worktree: string;
  agent: Agent;
}

/** Runs `body` with a fresh server and scratch folder (named after `name`), disposed of however it ends. */
export async function withRelayBench(name: string, body: (scope: RelayBenchScope) => Promise<BenchFigure[]>): Promise<BenchFigure[]> {
  const fixture = await startClaudeCodeFixture({ mode: 'chat' });
  const scratch = await mkdtemp(join(tmpdir(), `${name}-bench-`));
  try {
    const worktree = join(scratch, 'worktree');
    await mkdir(worktree, { recursive: true });
    const agent = (await fixture.api('GET', `/api/workspaces/${fixture.workspaceId}/agents/${fixture.agentId}`)).body as Agent;
    return await body({ fixture, scratch, worktree, agent });
  } finally {
    await fixture.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}
