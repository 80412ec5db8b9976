import { randomUUID } from 'node:crypto';
import { resolve as resolvePath, sep } from 'node:path';
import type { RunScope, RunToolbox, TransportAction, TransportGateResult } from '../../adapters/agent-transport.js';
import type { InheritedRules } from '../../core/policy/inherited-rules.js';
import { PUSH_PROXY_TOOL_NAME, PushGrants } from '../../core/push-grants.js';
import type { EffectClass } from '../../core/effect-classes.js';
import type { ToolDescriptor } from '../../core/tool-descriptor.js';
import { mayChangeCheckout } from '../../core/policy/may-change-checkout.js';
import type { ToolCallBlock } from '../../llm/model-types.js';
import type { WorkspaceSettings } from '../../schemas/settings.js';
import { parseToolInput } from '../../tools/builtin-tools.js';
import { fail, type Tool, type ToolContext, type ToolResult } from '../../tools/define-tool.js';
import { NodeWorktree } from '../../worktree/node-worktree.js';
import type { WorktreeOperations } from '../../worktree/worktree-operations.js';
import type { PresenceService } from '../agents/presence-service.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { PolicyService, PolicyVerdict } from '../approvals/policy-service.js';
import type { QuestionService } from '../approvals/question-service.js';
import type { EventBus } from '../event-bus.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { RunRecorder } from './record-run.js';

/** The services the gate stage consults. */
export interface GateToolCallsDeps {
  policy: PolicyService;
  approvals: ApprovalService;
  events: EventBus;
  settings: SettingsService;
  presence: PresenceService;
  questions: QuestionService;
}

/** `workspace rule r_1`, `default` …: which layer of the policy decided, for the model and the log. */
function decidedBy(verdict: PolicyVerdict): string {
  const rule = `${verdict.decidedBy.scope}${verdict.decidedBy.ruleId ? ` rule ${verdict.decidedBy.ruleId}` : ''}`;
  return verdict.inheritedFrom ? `${rule}, inherited from run ${verdict.inheritedFrom.runId}` : rule;
}

/** The run whose calls are gated. */
export interface GatedRun {
  scope: RunScope;
  /** The conversation whose run tree the run belongs to: approvals are filed under it. */
  treeConversationId: string | null;
  /** SEC-9: the rule scopes of the runs that started this one; their denies and asks are a ceiling. */
  inheritedRules: InheritedRules;
  /** The run's tools on its surface (HAR-3). */
  tools: ReadonlyMap<string, Tool>;
  worktreePath: string;
  settings: WorkspaceSettings;
  recorder: RunRecorder;
  /** HAR-5: runs a child run for the `task` tool; it reports back as the tool result. */
  runSubagent: NonNullable<ToolContext['runSubagent']>;
  /**
   * CTX-3: takes the turn's checkpoint of the checkout (once; later calls get the same promise).
   * Awaited after the gate allows a call that may change the checkout and before it executes, so a
   * turn that only reads makes none and no write runs before it.
   */
  checkpointBeforeChange?: () => Promise<void>;
}

/**
 * The most approvals one run may have waiting for the operator at once (POL-7, SEC-10). An agent
 * holding its run token can post to the hook endpoint as fast as it likes, and each ask would become
 * a card on the operator's screen: past this many, a further ask is refused at once (deny, naming the
 * cap) instead of burying the cards that matter. Far above what a runner asks in parallel.
 */
export const MAX_PENDING_APPROVALS_PER_RUN = 16;

/**
 * The gate stage of the run pipeline (POL-1, POL-4, HAR-3): the one chokepoint every tool call of a
 * run passes — the built-in harness's, an external runner's product tools over MCP, and an external
 * runner's own actions reported by its hooks or the push proxy. Parse the input against the tool's
 * schema, ask the policy engine, apply the verdict (deny, fail-closed ask, approval), then execute.
 * This file is the one home of that sequence: nothing else applies a verdict.
 */
export class RunToolCalls implements RunToolbox {
  private worktree: WorktreeOperations;
  /** Approvals of this run an operator has not decided yet (see {@link MAX_PENDING_APPROVALS_PER_RUN}). */
  private pendingApprovals = 0;
  /** Per-run state the tools keep between calls (the todo list…). */
  private readonly runState = new Map<string, unknown>();
  /** POL-6: the operator's approvals of `git push` commands, honoured once by this run's push proxy. */
  private readonly pushGrants: PushGrants;

  constructor(
    private readonly deps: GateToolCallsDeps,
    private readonly run: GatedRun,
    pushGrants: PushGrants = new PushGrants(),
  ) {
    this.worktree = new NodeWorktree(run.worktreePath);
    this.pushGrants = pushGrants;
  }

  get tools(): Tool[] {
    return [...this.run.tools.values()];
  }

  useWorktree(worktree: WorktreeOperations): void {
    this.worktree = worktree;
  }

  private policyContext() {
    const { scope } = this.run;
    return { mode: scope.mode, autonomy: scope.autonomy, spaceId: scope.spaceId, agentId: scope.agent.id, inheritedRules: this.run.inheritedRules, worktreeRoot: this.run.worktreePath };
  }

  /**
   * Applies a policy verdict to one call (POL-4, POL-7), for the built-in harness and for external
   * runners' hooks alike. Returns null when the call may run, else the result the model gets instead:
   * deny → an error naming the deciding rule; ask → fail closed when no operator is connected, else an
   * approval the call waits on (the run shows as blocked meanwhile). An unanswered approval is a no.
   */
  private async gate(verdict: PolicyVerdict, call: ToolCallBlock, signal: AbortSignal): Promise<ToolResult | null> {
    const { workspaceId } = this.run.scope;
    if (verdict.decision === 'allow') return null;
    const refusal = { decidedBy: verdict.decidedBy, classes: verdict.classes, ...(verdict.inheritedFrom ? { inheritedFrom: verdict.inheritedFrom } : {}) };
    if (verdict.decision === 'deny') return fail(`Denied by policy (decided by ${decidedBy(verdict)}): ${verdict.explanation}`, refusal);
    if (this.deps.events.subscriberCount(workspaceId) === 0) {
      return fail(
        `Denied: this call needs an operator's approval (${verdict.classes.join(', ') || 'gated'}; decided by ${decidedBy(verdict)}) and no operator is connected to approve it (fail closed, POL-4).`,
        refusal,
      );
    }
    if (this.pendingApprovals >= MAX_PENDING_APPROVALS_PER_RUN) {
      return fail(
        `Denied: this run already has ${MAX_PENDING_APPROVALS_PER_RUN} approvals waiting for the operator, the most one run may ask at once; wait for their answers before asking again (decided by ${decidedBy(verdict)}).`,
        { ...refusal, refusal: 'pendingApprovals', limit: MAX_PENDING_APPROVALS_PER_RUN },
      );
    }
    // Counted before the first await, so parallel asks cannot all pass the check together.
    this.pendingApprovals += 1;
    const outcome = await this.askOperator(workspaceId, verdict, call, signal).finally(() => {
      this.pendingApprovals -= 1;
    });
    if (outcome.status === 'approved') {
      if (outcome.remember) await this.deps.policy.rememberChoice(workspaceId, verdict, 'allow', outcome.approval.decidedBy);
      // POL-6: the push this command makes reaches the push proxy next; this approval covers it once.
      if (verdict.classes.includes('gitPush') && call.name !== PUSH_PROXY_TOOL_NAME && typeof call.input.command === 'string') this.pushGrants.grant(call.input.command, call.id);
      return null;
    }
    if (outcome.status === 'rejected') {
      if (outcome.remember) await this.deps.policy.rememberChoice(workspaceId, verdict, 'deny', outcome.approval.decidedBy);
      return fail(`The operator rejected this call${outcome.reason ? `: ${outcome.reason}` : '.'}`, { approvalId: outcome.approval.id });
    }
    return fail(`Denied: ${outcome.reason ?? 'no decision'} (an unanswered approval is never a yes, POL-4).`, { approvalId: outcome.approval.id });
  }

  /** One approval request for a call the policy asks about, waited on while the run shows as blocked. */
  private async askOperator(workspaceId: string, verdict: PolicyVerdict, call: ToolCallBlock, signal: AbortSignal) {
    const { scope } = this.run;
    const { agent, runId } = scope;
    const settings = await this.deps.settings.get(workspaceId);
    return this.whileBlocked(() =>
      this.deps.approvals.requestAndWait(
        workspaceId,
        {
          kind: 'tool',
          durable: false,
          runId,
          agentId: agent.id,
          spaceId: scope.spaceId,
          conversationId: this.run.treeConversationId,
          title: `${agent.name} wants to run ${call.name}: ${verdict.summary}`,
          request: {
            toolName: call.name,
            input: call.input,
            classes: verdict.classes,
            summary: verdict.summary,
            decidedBy: verdict.decidedBy,
            fingerprint: verdict.fingerprint,
            // SEC-9: the card says when the ask is another space's rule, not this run's own.
            ...(verdict.inheritedFrom ? { inheritedFrom: verdict.inheritedFrom, explanation: verdict.explanation } : {}),
          },
        },
        { timeoutMs: settings.approvalTimeoutSeconds * 1000, signal },
      ),
    );
  }

  /** While the run waits on the operator (an approval, a question) it shows as blocked and the watchdog does not count. */
  private async whileBlocked<T>(wait: () => Promise<T>): Promise<T> {
    const { scope, recorder } = this.run;
    this.deps.presence.set(scope.workspaceId, scope.agent.id, 'blocked', scope.runId);
    recorder.setLiveness('blocked');
    recorder.watchdog.suspend();
    try {
      return await wait();
    } finally {
      recorder.watchdog.resume();
      recorder.setLiveness('ok');
    }
  }

  /** The one chokepoint for product tools: input validation, policy, approval gate, execution. */
  async execute(call: ToolCallBlock, signal: AbortSignal): Promise<ToolResult> {
    const { scope, recorder } = this.run;
    const { workspaceId, agent, runId } = scope;
    const tool = this.run.tools.get(call.name);
    if (!tool) return fail(`There is no tool named "${call.name}" here.`);
    const parsed = parseToolInput(tool, call.input);
    if (!parsed.ok) return parsed.result;
    const verdict = await this.deps.policy.decideToolCall(workspaceId, this.policyContext(), tool, parsed.input);
    recorder.log.toolCallDecided(call.id, verdict);
    const gated = await this.gate(verdict, call, signal);
    if (gated) return gated;
    if (this.run.checkpointBeforeChange && mayChangeCheckout(tool, verdict)) await this.run.checkpointBeforeChange();
    recorder.executedCalls.add(call.id);
    this.deps.presence.set(workspaceId, agent.id, 'executing', runId);
    try {
      return await tool.execute(parsed.input, this.toolContext(signal));
    } catch (error) {
      return fail(`${call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      // POL-6: an approval covers the push its command makes while it runs, not one made later.
      this.pushGrants.revoke(call.id);
      this.deps.presence.set(workspaceId, agent.id, 'thinking', runId);
    }
  }

  /** A hook's or the push proxy's report of a runner's own action, decided and gated like a built-in call (POL-1). */
  async gateAction(action: TransportAction, signal: AbortSignal): Promise<TransportGateResult> {
    const verdict = await this.verdictFor(action);
    // POL-6: a push the operator already approved at this run's gate is not asked twice. Only an
    // `ask` is answered by the grant: a deny (or a rule that allows) decides as always.
    // The grant is matched against the ref updates the proxy parsed, never against a command line.
    const granted = verdict.decision === 'ask' && action.kind === 'command' && action.toolName === PUSH_PROXY_TOOL_NAME && action.push ? this.pushGrants.take(action.push) : null;
    if (granted !== null) {
      const reason = `Allowed: the operator approved \`${granted.slice(0, 200)}\` at this run's gate moments ago (one approval per push; decided by ${decidedBy(verdict)}).`;
      return { allow: true, decision: verdict.decision, reason, decidedBy: verdict.decidedBy, classes: verdict.classes };
    }
    const call: ToolCallBlock = { type: 'tool_call', id: `hook_${randomUUID()}`, name: action.toolName, input: action.kind === 'command' ? { command: action.command } : { path: action.path } };
    const denied = await this.gate(verdict, call, signal);
    return {
      allow: denied === null,
      decision: verdict.decision,
      reason: denied?.content ?? `Allowed (decided by ${decidedBy(verdict)}).`,
      decidedBy: verdict.decidedBy,
      classes: verdict.classes,
    };
  }

  /** The policy engine's verdict on a runner's own action, without any approval wait (RLY-7 Ask asks the operator its own way). */
  async decideAction(action: TransportAction): Promise<Pick<TransportGateResult, 'decision' | 'reason' | 'decidedBy' | 'classes'>> {
    const verdict = await this.verdictFor(action);
    return { decision: verdict.decision, reason: `${verdict.explanation} (decided by ${decidedBy(verdict)})`, decidedBy: verdict.decidedBy, classes: verdict.classes };
  }

  private async verdictFor(action: TransportAction): Promise<PolicyVerdict> {
    const { scope } = this.run;
    const worktreePath = this.run.worktreePath;
    if (action.kind === 'command') return this.deps.policy.decideCommand(scope.workspaceId, this.policyContext(), action.command, action.toolName);
    const absolute = resolvePath(worktreePath, action.path);
    const inside = absolute === worktreePath || absolute.startsWith(`${worktreePath}${sep}`);
    const descriptor: ToolDescriptor = {
      name: action.toolName,
      description: 'native file write',
      tier: 'write',
      effects: inside ? [] : ['fileWriteOutsideWorktree'],
      writesWorktree: inside,
    };
    return this.deps.policy.decideToolCall(scope.workspaceId, this.policyContext(), descriptor, { path: action.path });
  }

  /** What a tool is handed: the (sandboxed) worktree, the run's state, and the operator and subagent hooks. */
  private toolContext(signal: AbortSignal): ToolContext {
    const { scope, settings } = this.run;
    const { workspaceId, agent, runId, conversationId } = scope;
    return {
      worktree: this.worktree,
      signal,
      runId,
      runState: this.runState,
      ...(conversationId
        ? {
            askUser: async (questions, questionSignal) => {
              try {
                return await this.whileBlocked(() =>
                  this.deps.questions.ask({ workspaceId, runId, agentId: agent.id, conversationId, questions }, { timeoutMs: settings.questionTimeoutSeconds * 1000, signal: questionSignal }),
                );
              } finally {
                this.deps.presence.set(workspaceId, agent.id, 'executing', runId);
              }
            },
          }
        : {}),
      runSubagent: this.run.runSubagent,
      decideEgress: (url) => this.decideEgress(url),
    };
  }

  /**
   * SEC-8: the run's policy on a tool the model PROVIDER would run on its side (a web search, an MCP
   * server, code execution) named in a model request the proxy holds: decided as the effect it is
   * (its classes; an MCP server's URL for domain rules), without asking anyone, and recorded in the
   * run log whatever the answer (unless `record` is false: a transport asking ahead, see
   * `TransportRunContext.providerToolAllowed`).
   */
  async decideProviderTool(tool: { field: string; what: string; effects: readonly EffectClass[]; url?: string; switchOff?: { says: string } }, options: { record?: boolean } = {}): Promise<{ decision: PolicyVerdict['decision']; explanation: string }> {
    const descriptor: ToolDescriptor = { name: 'provider-side-tool', description: tool.what, tier: 'execute', effects: tool.effects, writesWorktree: false, egressUrlField: 'url' };
    const verdict = await this.deps.policy.decideToolCall(this.run.scope.workspaceId, this.policyContext(), descriptor, { field: tool.field, what: tool.what, ...(tool.url ? { url: tool.url } : {}) });
    // A transport asking ahead (whether to offer the tool at all) is not a request the proxy refused.
    // A refused tool the proxy switches off (rather than refusing the request) says so: the request still went.
    const switchedOff = tool.switchOff && verdict.decision !== 'allow' ? { outcome: tool.switchOff.says } : {};
    if (options.record !== false) this.run.recorder.log.event('provider_tool_decided', { field: tool.field, what: tool.what, decision: verdict.decision, decidedBy: verdict.decidedBy, classes: verdict.classes, ...switchedOff });
    return { decision: verdict.decision, explanation: `${verdict.explanation} (decided by ${decidedBy(verdict)})` };
  }

  /**
   * TOOL-1: the policy's answer for reaching a URL, as web_fetch's gate would give it (domain rules,
   * mode, dial, inherited ceilings), without asking anyone: web_fetch asks it for every redirect hop.
   */
  private async decideEgress(url: string): Promise<{ decision: PolicyVerdict['decision']; hostNamedByRule: boolean; explanation: string }> {
    const webFetch = this.run.tools.get('web_fetch');
    const descriptor: ToolDescriptor = webFetch ?? { name: 'web_fetch', description: 'web fetch', tier: 'read', effects: ['networkEgress'], writesWorktree: false, egressUrlField: 'url' };
    const verdict = await this.deps.policy.decideToolCall(this.run.scope.workspaceId, this.policyContext(), descriptor, { url });
    return { decision: verdict.decision, hostNamedByRule: verdict.hostNamedByRule === true, explanation: `${verdict.explanation} (decided by ${decidedBy(verdict)})` };
  }
}
