import type { ToolCallBlock } from '../../llm/model-types.js';
import type { Agent } from '../../schemas/agent.js';
import type { Run } from '../../schemas/run.js';
import { fail, type ToolResult } from '../../tools/define-tool.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { EventBus } from '../event-bus.js';
import type { LivenessWatchdog } from './liveness-watchdog.js';
import type { PolicyService, PolicyVerdict } from '../approvals/policy-service.js';
import type { PresenceService } from '../agents/presence-service.js';
import type { SettingsService } from '../workspaces/settings-service.js';

/** Where the call being gated comes from. */
export interface GateContext {
  workspaceId: string;
  agent: Agent;
  spaceId: string | null;
  conversationId: string | null;
  runId: string;
  call: ToolCallBlock;
  watchdog: LivenessWatchdog;
  setLiveness: (liveness: Run['liveness']) => void;
  signal: AbortSignal;
}

/**
 * Applies a policy verdict to one call (POL-4, POL-7), for the built-in harness and for external
 * runners' hooks alike: deny → an error result naming the deciding rule; ask → fail closed when no
 * operator is connected, else an approval the call waits on (the run shows as blocked meanwhile).
 */
export class ToolCallGate {
  constructor(
    private readonly events: EventBus,
    private readonly approvals: ApprovalService,
    private readonly policy: PolicyService,
    private readonly presence: PresenceService,
    private readonly settings: SettingsService,
  ) {}

  /** Returns null when the call may run, else the result the model gets instead. */
  async apply(verdict: PolicyVerdict, context: GateContext): Promise<ToolResult | null> {
    const { workspaceId, agent, runId, call } = context;
    const rule = `${verdict.decidedBy.scope}${verdict.decidedBy.ruleId ? ` rule ${verdict.decidedBy.ruleId}` : ''}`;
    if (verdict.decision === 'allow') return null;
    if (verdict.decision === 'deny') {
      return fail(`Denied by policy (decided by ${rule}): ${verdict.explanation}`, { decidedBy: verdict.decidedBy, classes: verdict.classes });
    }
    if (this.events.subscriberCount(workspaceId) === 0) {
      return fail(
        `Denied: this call needs an operator's approval (${verdict.classes.join(', ') || 'gated'}; decided by ${rule}) and no operator is connected to approve it (fail closed, POL-4).`,
        { decidedBy: verdict.decidedBy, classes: verdict.classes },
      );
    }
    const settings = await this.settings.get(workspaceId);
    this.presence.set(workspaceId, agent.id, 'blocked', runId);
    context.setLiveness('blocked');
    context.watchdog.suspend();
    try {
      const outcome = await this.approvals.requestAndWait(
        workspaceId,
        {
          kind: 'tool',
          durable: false,
          runId,
          agentId: agent.id,
          spaceId: context.spaceId,
          conversationId: context.conversationId,
          title: `${agent.name} wants to run ${call.name}: ${verdict.summary}`,
          request: { toolName: call.name, input: call.input, classes: verdict.classes, summary: verdict.summary, decidedBy: verdict.decidedBy, fingerprint: verdict.fingerprint },
        },
        { timeoutMs: settings.approvalTimeoutSeconds * 1000, signal: context.signal },
      );
      if (outcome.status === 'approved') {
        if (outcome.remember) await this.policy.rememberChoice(workspaceId, verdict, 'allow');
        return null;
      }
      if (outcome.status === 'rejected') {
        if (outcome.remember) await this.policy.rememberChoice(workspaceId, verdict, 'deny');
        return fail(`The operator rejected this call${outcome.reason ? `: ${outcome.reason}` : '.'}`, { approvalId: outcome.approval.id });
      }
      return fail(`Denied: ${outcome.reason ?? 'no decision'} (an unanswered approval is never a yes, POL-4).`, { approvalId: outcome.approval.id });
    } finally {
      context.watchdog.resume();
      context.setLiveness('ok');
    }
  }
}
