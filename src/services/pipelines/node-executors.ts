import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { outputSchemaReminder } from '../../core/completion-contract.js';
import { resolveDispatchMode } from '../../core/mode-resolution.js';
import { checkAgainstSchema } from '../../core/pipelines/output-schema-check.js';
import { DEFAULT_AUTONOMY } from '../../core/modes.js';
import { evaluateCondition } from '../../core/pipelines/condition-expression.js';
import type { PipelineNode } from '../../core/pipelines/pipeline-definition.js';
import { effectiveSpaceMode } from '../../core/pipelines/space-mode-extras.js';
import type { CommandSandbox } from '../../sandbox/command-sandbox.js';
import { sanitizedEnv } from '../../sandbox/sanitized-env.js';
import { runWithinLimits } from '../../sandbox/limited-run.js';
import { sharedSpawnHelper, type SpawnHelper } from '../../sandbox/spawn-helper.js';
import type { Approval } from '../../schemas/approval.js';
import type { Run } from '../../schemas/run.js';
import { findTicket, setTicketStatus } from '../../store/repositories/ticket-repository.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { PolicyService } from '../approvals/policy-service.js';
import type { RunExecutor } from '../runs/run-executor.js';
import type { TurnService } from '../runs/turn-service.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { PermanentNodeError, type NodeExecution } from './node-executor.js';
import type { PipelineEngine } from './pipeline-engine.js';
import { scriptWithPlaceholderEnv } from './shell-placeholders.js';

/** Members of a team, for `team.dispatch` (teams are created by orchestrations; wired by the composition root). */
export type TeamDirectory = (workspaceId: string, teamId: string) => Promise<{ memberAgentIds: string[]; managerAgentId: string | null } | null>;

export interface NodeExecutorDeps {
  workspaces: WorkspaceService;
  agents: AgentService;
  spaces: SpaceService;
  turns: TurnService;
  executor: () => RunExecutor;
  approvals: ApprovalService;
  policy: PolicyService;
  commandSandbox: CommandSandbox;
  teams?: TeamDirectory;
  /** Who forks a bashScript's command. Default: the process's {@link sharedSpawnHelper}, so the server never forks itself. */
  spawnHelper?: SpawnHelper;
}

/** Per stream, the newest bytes kept: a failing script's last words explain it best. */
const OUTPUT_CAP = 64 * 1024;
/** A script has no timeout of its own: the node's `timeoutMs` aborts it through the execution signal. */
const NO_TIMEOUT_MS = 2_147_483_647;

/** The final answer of an agent as JSON: the whole text, else the last fenced block, else the outermost braces. */
export function extractJson(text: string): unknown {
  const attempts = [text.trim()];
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
  if (fenced.length > 0) attempts.push(fenced.at(-1)!);
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) attempts.push(text.slice(first, last + 1));
  for (const candidate of attempts) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // next candidate
    }
  }
  throw new Error('the agent did not end with a JSON object matching the output schema');
}

/** Characters of a previous answer quoted back in a reminder to a run without that conversation. */
const QUOTED_ANSWER_CHARS = 8_000;

/** An answer checked against a node's output schema: the parsed value, or what is wrong with it in words. */
function checkAnswer(text: string, schema: Record<string, unknown>): { ok: true; value: unknown } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = extractJson(text);
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
  const problems = checkAgainstSchema(value, schema);
  if (problems.length > 0) return { ok: false, problem: `the agent's JSON does not match the output schema: ${problems.slice(0, 10).join('; ')}` };
  return { ok: true, value };
}

/**
 * The node executors (PIPE-1, MODE-5). Agent nodes start a run through the existing run machinery
 * (TurnService in a room, RunExecutor one-shot otherwise) and wait for its outcome; a gate is a
 * durable approval; bash runs in the CommandSandbox after the policy engine's verdict.
 */
export function registerNodeExecutors(engine: PipelineEngine, deps: NodeExecutorDeps): void {
  const gateWaiters = new Map<string, (approval: Approval) => void>();
  deps.approvals.onDecided((_workspaceId, approval) => gateWaiters.get(approval.id)?.(approval));

  /** Waits for an operator's decision on an approval; resolves at once when it is already decided. */
  async function decision(workspaceId: string, approvalId: string, signal: AbortSignal): Promise<Approval> {
    const waited = new Promise<Approval>((resolve, reject) => {
      gateWaiters.set(approvalId, resolve);
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
    try {
      const current = await deps.approvals.get(workspaceId, approvalId);
      if (current.status !== 'pending') return current;
      return await waited;
    } finally {
      gateWaiters.delete(approvalId);
    }
  }

  async function openApproval(execution: NodeExecution, kind: string, title: string, request: Record<string, unknown>): Promise<Approval> {
    // Waiting for a person must not hold a node slot (PIPE-1: many runs may wait on gates at once).
    execution.yieldSlot();
    if (execution.recorded.approvalId) {
      const existing = await deps.approvals.get(execution.workspaceId, execution.recorded.approvalId).catch(() => null);
      if (existing && existing.kind === kind) return decision(execution.workspaceId, existing.id, execution.signal);
    }
    const approval = await deps.approvals.create(execution.workspaceId, { kind, durable: true, title, request: { pipelineRunId: execution.runId, nodeKey: execution.node.key, ...request } });
    await execution.recordApproval(approval.id);
    return decision(execution.workspaceId, approval.id, execution.signal);
  }

  async function runAgent(execution: NodeExecution, agentId: string, prompt: string, room: { spaceId: string; conversationId: string } | null): Promise<{ text: string; runId: string; agentId: string }> {
    const agent = await deps.agents.get(execution.workspaceId, agentId).catch(() => null);
    if (!agent) throw new PermanentNodeError(`agent ${agentId} does not exist`);
    const text = `${prompt}\n\n(Pipeline run ${execution.runId}, step ${execution.node.key}; idempotency key ${execution.idempotencyKey}: if this step's effect already exists under this key, do not repeat it.)`;
    let finish!: (outcome: { run: Run; finalText: string }) => void;
    const finished = new Promise<{ run: Run; finalText: string }>((resolve) => (finish = resolve));
    let run: Run;
    if (room) {
      run = await deps.turns.startSystemTurn(execution.workspaceId, { agent, conversationId: room.conversationId, spaceId: room.spaceId, text, onFinished: (ended, finalText) => finish({ run: ended, finalText }) });
    } else {
      const started = await deps.executor().start({
        workspaceId: execution.workspaceId,
        agent,
        spaceId: null,
        conversationId: null,
        mode: resolveDispatchMode(null),
        autonomy: DEFAULT_AUTONOMY,
        prompt: text,
        onFinished: (ended, finalText) => finish({ run: ended, finalText }),
      });
      run = started.run;
    }
    await execution.recordAgentRun(run.id);
    const cancel = () => deps.executor().cancel(run.id);
    execution.signal.addEventListener('abort', cancel, { once: true });
    try {
      const outcome = await finished;
      if (outcome.run.state !== 'completed') throw new Error(`agent run ${run.id} ${outcome.run.state}${outcome.run.error ? `: ${outcome.run.error}` : ''}`);
      return { text: outcome.finalText, runId: run.id, agentId };
    } finally {
      execution.signal.removeEventListener('abort', cancel);
    }
  }

  /** The room an upstream `messaging.createSpace` opened (MODE-5: joined, never reconfigured). */
  function roomFrom(execution: NodeExecution, key: string | undefined): { spaceId: string; conversationId: string } | null {
    if (!key) return null;
    const output = execution.sources.get(key) as { spaceId?: unknown; conversationId?: unknown } | undefined;
    if (!output || typeof output.spaceId !== 'string' || typeof output.conversationId !== 'string') throw new PermanentNodeError(`upstream node ${key} opened no room`);
    return { spaceId: output.spaceId, conversationId: output.conversationId };
  }

  /**
   * Runs an agent node's agent and returns its output: the run itself, or — with an output schema —
   * the JSON its answer ends with. An answer without matching JSON gets one reminder turn
   * (outputSchemaReminder) before the node fails with the reason; a run that holds no conversation is
   * shown its previous answer, since it cannot see it otherwise.
   */
  async function agentAnswer(execution: NodeExecution, node: PipelineNode, agentId: string, prompt: string, room: { spaceId: string; conversationId: string } | null): Promise<unknown> {
    const result = await runAgent(execution, agentId, prompt, room);
    if (!node.outputSchema) return result;
    const first = checkAnswer(result.text, node.outputSchema);
    if (first.ok) return first.value;
    const reminder = outputSchemaReminder(node.outputSchema, first.problem);
    const text = room ? reminder : `${prompt}\n\nYour previous answer was:\n${result.text.slice(-QUOTED_ANSWER_CHARS)}\n\n${reminder}`;
    const again = checkAnswer((await runAgent(execution, agentId, text, room)).text, node.outputSchema);
    if (again.ok) return again.value;
    throw new Error(`${again.problem} (also after a reminder)`);
  }

  engine.registerExecutor('condition', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'condition' }>;
    const result = evaluateCondition(node.expression, execution.sources);
    if (!result.ok) throw new PermanentNodeError(result.error);
    return { value: result.value };
  });

  engine.registerExecutor('human.gate', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'human.gate' }>;
    const prompt = execution.resolve(node.prompt);
    const approval = await openApproval(execution, 'pipeline_gate', node.title ?? `Pipeline gate ${node.key}`, { prompt });
    if (approval.status !== 'approved') throw new PermanentNodeError(`the operator ${approval.status === 'rejected' ? 'rejected' : 'did not approve'} the gate${approval.reason ? `: ${approval.reason}` : ''}`);
    return { decision: 'approved', decidedBy: approval.decidedBy, reason: approval.reason };
  });

  engine.registerExecutor('messaging.createSpace', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'messaging.createSpace' }>;
    // MODE-5: exactly extras.mode ∈ {chat, review, plan}, anything else silently the default (review).
    const mode = effectiveSpaceMode(node.extras);
    const [defaultAgentId] = node.memberAgentIds;
    const space = await deps.spaces.create(execution.workspaceId, { name: execution.resolve(node.name).slice(0, 200), mode, ...(defaultAgentId ? { defaultAgentId } : {}) }, { openedByPipeline: true });
    const conversation = await deps.spaces.createConversation(execution.workspaceId, space.id, { title: node.title ?? node.key });
    return { spaceId: space.id, conversationId: conversation.id, mode: space.mode };
  });

  engine.registerExecutor('promptAgent', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'promptAgent' }>;
    const prompt = execution.resolve(node.prompt);
    return agentAnswer(execution, node, node.agentId, prompt, roomFrom(execution, node.spaceFrom));
  });

  engine.registerExecutor('ticketWork', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'ticketWork' }>;
    const prompt = execution.resolve(node.prompt);
    const db = (await deps.workspaces.handle(execution.workspaceId)).database.db;
    const ticket = await findTicket(db, node.ticketId);
    if (!ticket) throw new PermanentNodeError(`ticket ${node.ticketId} does not exist`);
    const setStatus = (status: string) => setTicketStatus(db, node.ticketId, status, new Date().toISOString());
    await setStatus('inProgress');
    try {
      const output = await agentAnswer(execution, node, node.agentId, `Ticket ${ticket.title}\n\n${ticket.description}\n\n${prompt}`, null);
      await setStatus('done');
      return output;
    } catch (error) {
      await setStatus('failed');
      throw error;
    }
  });

  engine.registerExecutor('synthesis', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'synthesis' }>;
    const prompt = execution.resolve(node.prompt);
    const schemaNote = node.outputSchema ? `\n\nEnd your answer with one JSON object that matches this JSON Schema:\n${JSON.stringify(node.outputSchema)}` : '';
    // An answer without matching JSON gets one reminder; the engine checks the output against the schema again.
    return agentAnswer(execution, node, node.agentId, `${prompt}${schemaNote}`, null);
  });

  engine.registerExecutor('team.dispatch', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'team.dispatch' }>;
    const prompt = execution.resolve(node.prompt);
    const team = deps.teams ? await deps.teams(execution.workspaceId, node.teamId) : null;
    if (!team) throw new PermanentNodeError(`team ${node.teamId} does not exist`);
    if (node.strategy === 'manager') {
      if (!team.managerAgentId) throw new PermanentNodeError(`team ${node.teamId} has no manager`);
      // delegate_task names colleagues by agent name, so the manager is told the names (ids as a fallback).
      const members = await Promise.all(
        team.memberAgentIds.filter((id) => id !== team.managerAgentId).map(async (id) => (await deps.agents.get(execution.workspaceId, id).catch(() => null))?.name ?? id),
      );
      const roster = members.length > 0 ? members.join(', ') : '(no other members: do it yourself)';
      return agentAnswer(execution, node, team.managerAgentId, `${prompt}\n\nYou manage this team; hand parts to its members with delegate_task: ${roster}.`, null);
    }
    if (team.memberAgentIds.length === 0) throw new PermanentNodeError(`team ${node.teamId} has no members`);
    // allParallel: every member gets the same prompt at once; one failed member fails the node.
    const results = await Promise.all(team.memberAgentIds.map((agentId) => runAgent(execution, agentId, prompt, null)));
    return { results };
  });

  engine.registerExecutor('bashScript', async (execution) => {
    const node = execution.node as Extract<PipelineNode, { type: 'bashScript' }>;
    const handle = await deps.workspaces.handle(execution.workspaceId);
    const scratch = join(handle.dir, 'pipeline-scratch', execution.runId, node.key);
    await mkdir(scratch, { recursive: true });
    const { script, env } = scriptWithPlaceholderEnv(node.script, execution.sources);
    // Placeholder variables hold upstream output: bash evaluates a value as code in arithmetic
    // (`(( "$X" > 3 ))` runs the `$(…)` of `a[$(…)]`), so the classifier is told every one that is not a plain number (SEC-5).
    const untrusted = Object.entries(env).filter(([, value]) => !/^\s*[-+]?[0-9]+\s*$/.test(value)).map(([name]) => name);
    const verdict = await deps.policy.decideCommand(execution.workspaceId, { mode: 'chat', autonomy: DEFAULT_AUTONOMY, spaceId: null, agentId: null, worktreeRoot: scratch }, script, 'bash', 'execute', untrusted);
    if (verdict.decision === 'deny') throw new PermanentNodeError(`policy denied the script: ${verdict.explanation}`);
    if (verdict.decision === 'ask') {
      const approval = await openApproval(execution, 'pipeline_command', `Pipeline ${execution.runId} step ${node.key} wants to run a command`, { command: verdict.summary, classes: [...verdict.classes] });
      if (approval.status !== 'approved') throw new PermanentNodeError(`the operator did not approve the script${approval.reason ? `: ${approval.reason}` : ''}`);
    }
    const sandbox = await deps.commandSandbox.forRun({ worktreePath: scratch, readOnly: false, sharedObjectsDir: null, workspaceDir: handle.dir, reach: [] });
    const launch = sandbox.wrapCommand ? await sandbox.wrapCommand(['bash', '-c', script]) : { command: 'bash', args: ['-c', script], dispose: async () => undefined };
    try {
      // Within the sandbox's process limits (SEC-11): a script that reaches one is stopped and says which.
      const result = await runWithinLimits(deps.spawnHelper ?? sharedSpawnHelper(), {
        command: launch.command,
        args: launch.args,
        cwd: scratch,
        env: sanitizedEnv(process.env, { ...sandbox.env, ...env }),
        // Its own process group: a stop reaches everything the script started.
        detached: true,
        timeoutMs: NO_TIMEOUT_MS,
        killGraceMs: 0,
        drainMs: null,
        maxOutputBytes: OUTPUT_CAP,
        keepTail: true,
        signal: execution.signal,
      }, 'cgroup' in launch ? launch.cgroup : null);
      const stdout = result.stdout.toString('utf8');
      const stderr = result.stderr.toString('utf8');
      if (result.limitReached) throw new Error(`script stopped: ${result.limitReached}: ${stderr.slice(-2_000)}`);
      if (result.exitCode === 0) return { exitCode: 0, stdout, stderr, sandbox: sandbox.description };
      throw new Error(`script exited with ${result.exitCode ?? 'a signal'}: ${stderr.slice(-2_000)}`);
    } finally {
      await launch.dispose();
    }
  });
}
