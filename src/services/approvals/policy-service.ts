import type { Kysely } from 'kysely';
import type { Decision } from '../../core/decisions.js';
import { decisionSeverity } from '../../core/decisions.js';
import type { EffectClass } from '../../core/effect-classes.js';
import { resolveDispatchMode } from '../../core/mode-resolution.js';
import { DEFAULT_AUTONOMY, type AutonomyLevel, type Mode } from '../../core/modes.js';
import { compilePolicy, type CompiledPolicy } from '../../core/policy/compile-policy.js';
import { decideAction } from '../../core/policy/decide-action.js';
import { shellAction, toolAction, type PolicyAction } from '../../core/policy/policy-action.js';
import type { DecidedBy, PolicyDecision } from '../../core/policy/policy-decision.js';
import type { PolicyRule as CorePolicyRule } from '../../core/policy/policy-rule.js';
import { fingerprintAction, rememberChoiceRule } from '../../core/policy/remembered-choice.js';
import { classifyShellCommand, type ShellClassification } from '../../core/shell/classify-command.js';
import { describeInheritedScope, type InheritedRuleScope, type InheritedRules } from '../../core/policy/inherited-rules.js';
import { callEffects, type ToolDescriptor } from '../../core/tool-descriptor.js';
import { httpUrlHost } from '../../core/policy/http-url-host.js';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { AuditActor } from '../../schemas/audit.js';
import type { CreateRuleBody, PolicyRule, ProbeBody, ProbeResult } from '../../schemas/policy.js';
import { deletePolicyRule, deleteRememberedRules, insertPolicyRule, listPolicyRules } from '../../store/repositories/policy-rule-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { AgentService } from '../agents/agent-service.js';
import { withAuditEntry } from '../audit/audit-act.js';
import { worktreeFileReader } from '../worktree-file-reader.js';
import type { EventBus } from '../event-bus.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';

/** Where a tool call happens, as the chokepoints know it. */
export interface ToolCallContext {
  mode: Mode;
  autonomy: AutonomyLevel;
  spaceId: string | null;
  agentId: string | null;
  /**
   * SEC-9: the rule scopes of the runs that started this one (a relay sender, a subagent's or a
   * delegate's parent, up the chain). Each is decided too, and the most restrictive answer wins.
   */
  inheritedRules?: InheritedRules;
  worktreeRoot?: string;
}

/** A policy decision plus what the gate needs to show it and remember it. */
export interface PolicyVerdict {
  decision: Decision;
  classes: readonly EffectClass[];
  decidedBy: DecidedBy;
  explanation: string;
  /** What the approval card shows (the command line, or the tool and its input). */
  summary: string;
  fingerprint: string;
  classification?: ShellClassification;
  /** Set when an inherited ceiling, not the run's own rules, made the decision (SEC-9). */
  inheritedFrom?: InheritedRuleScope;
  /** TOOL-1: a rule naming the call's exact host allows or asks (see PolicyDecision). */
  hostNamedByRule?: boolean;
}

/** TOOL-1: the host of the URL a call reaches, normalized as domain rules are; undefined when the field holds no http(s) URL. */
function egressHost(tool: ToolDescriptor, input: unknown): string | undefined {
  if (!tool.egressUrlField || !input || typeof input !== 'object') return undefined;
  const url = (input as Record<string, unknown>)[tool.egressUrlField];
  return typeof url === 'string' ? httpUrlHost(url) : undefined;
}

/** A rule in a few words for the audit log: its decision, scope and what it matches. */
function describeRule(rule: PolicyRule): string {
  const match = rule.match;
  const matched = match.kind === 'class' ? `effect ${match.effectClass}` : match.kind === 'command' ? `command ${match.prefix}` : match.kind === 'domain' ? `domain ${match.domain}` : rule.note ?? 'a remembered action';
  return `${rule.decision} ${matched} (${rule.scope}${rule.scope === 'workspace' ? '' : ` ${rule.scopeId}`})`;
}

/** Tools whose input is a shell command line, classified per subcommand (POL-2). */
const SHELL_TOOLS = new Set(['bash']);

/** Summary of a non-shell tool call for approvals and fingerprints: stable key order. */
function toolCallSummary(toolName: string, input: unknown): string {
  const json = JSON.stringify(input, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
  return `${toolName} ${json && json.length > 500 ? `${json.slice(0, 500)}…` : json}`;
}

/**
 * The one policy engine every chokepoint consults (POL-1): rules stored per workspace, compiled once
 * per change into an index, and decided through the pure core (`decideAction`).
 */
export class PolicyService {
  private readonly compiled = new Map<string, CompiledPolicy>();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly agents: AgentService,
    private readonly events: EventBus,
  ) {}

  async listRules(workspaceId: string): Promise<PolicyRule[]> {
    const db = await this.db(workspaceId);
    return listPolicyRules(db);
  }

  /** Adds a rule; `actor` is the person adding it, recorded on the rule and in the audit log (TEAM-3). */
  async createRule(workspaceId: string, body: CreateRuleBody, actor: AuditActor): Promise<PolicyRule> {
    const db = await this.db(workspaceId);
    let scopeId = body.scopeId;
    if (body.scope === 'workspace') {
      if (scopeId !== undefined && scopeId !== workspaceId) throw new ValidationError('scopeId', 'a workspace rule belongs to this workspace: omit scopeId');
      scopeId = workspaceId;
    } else if (!scopeId) {
      throw new ValidationError('scopeId', `a ${body.scope} rule needs the ${body.scope} id`);
    } else if (body.scope === 'space') {
      if (!(await this.spaces.findSpace(workspaceId, scopeId))) throw new NotFoundError('space', scopeId, 'scopeId');
    } else {
      await this.agents.get(workspaceId, scopeId).catch(() => {
        throw new NotFoundError('agent', scopeId!, 'scopeId');
      });
    }
    const rule: PolicyRule = {
      id: newId('rule'),
      scope: body.scope,
      scopeId,
      match: body.match,
      decision: body.decision,
      note: body.note ?? null,
      createdAt: nowIso(),
      createdBy: actor.id,
    };
    const act = { kind: 'policy.rule_added', actor, workspaceId, spaceId: rule.scope === 'space' ? rule.scopeId : null, subject: { type: 'rule', id: rule.id }, summary: `Added rule: ${describeRule(rule)}`, details: { scope: rule.scope, scopeId: rule.scopeId, match: rule.match, decision: rule.decision } };
    await withAuditEntry(db, act, (trx) => insertPolicyRule(trx, rule));
    this.compiled.delete(workspaceId);
    this.events.publish(workspaceId, 'policy.ruleCreated', rule);
    return rule;
  }

  /** Another process changed the workspace's rules (its committed policy event); recompile on next use. */
  rulesChangedElsewhere(workspaceId: string): void {
    this.compiled.delete(workspaceId);
  }

  async deleteRule(workspaceId: string, ruleId: string, actor: AuditActor): Promise<void> {
    const db = await this.db(workspaceId);
    const rule = (await listPolicyRules(db)).find((candidate) => candidate.id === ruleId);
    if (!rule) throw new NotFoundError('rule', ruleId, 'ruleId');
    const act = { kind: 'policy.rule_removed', actor, workspaceId, spaceId: rule.scope === 'space' ? rule.scopeId : null, subject: { type: 'rule', id: ruleId }, summary: `Removed rule: ${describeRule(rule)}`, details: { scope: rule.scope, scopeId: rule.scopeId, match: rule.match, decision: rule.decision } };
    // Removed concurrently: nothing was removed here, so the entry rolls back with the 404.
    await withAuditEntry(db, act, async (trx) => {
      if (!(await deletePolicyRule(trx, ruleId))) throw new NotFoundError('rule', ruleId, 'ruleId');
    });
    this.compiled.delete(workspaceId);
    this.events.publish(workspaceId, 'policy.ruleDeleted', { id: ruleId });
  }

  /** "Remember this choice" (POL-3): a workspace rule against the action's fingerprint; repeats replace. `decidedBy`: who chose (TEAM-3). */
  async rememberChoice(workspaceId: string, verdict: PolicyVerdict, decision: Decision, decidedBy: string | null): Promise<void> {
    const core = rememberChoiceRule({ workspaceId, classes: verdict.classes, summary: verdict.summary, decision });
    const db = await this.db(workspaceId);
    await deleteRememberedRules(db, verdict.fingerprint);
    await insertPolicyRule(db, {
      id: newId('rule'),
      scope: 'workspace',
      scopeId: workspaceId,
      match: { kind: 'fingerprint', fingerprint: verdict.fingerprint },
      decision: core.decision,
      note: `remembered: ${verdict.summary.slice(0, 200)}`,
      createdAt: nowIso(),
      createdBy: decidedBy,
    });
    this.compiled.delete(workspaceId);
  }

  /** Decides one tool call at the built-in harness's chokepoint (HAR-3). */
  async decideToolCall(workspaceId: string, context: ToolCallContext, tool: ToolDescriptor, input: unknown): Promise<PolicyVerdict> {
    if (SHELL_TOOLS.has(tool.name)) {
      const command = (input as { command?: unknown }).command;
      return this.decideCommand(workspaceId, context, typeof command === 'string' ? command : '', tool.name, tool.tier);
    }
    const summary = toolCallSummary(tool.name, input);
    // SEC-9: the classes of this call (relay_tool's `send` is not its `list`), not only the static ones.
    const effects = callEffects(tool, input);
    const fingerprint = fingerprintAction(effects, summary);
    const domain = egressHost(tool, input);
    const action = { ...toolAction(tool, fingerprint), classes: effects, ...(domain !== undefined ? { domain } : {}) };
    if (!tool.asksOperatorFirst) return this.decide(workspaceId, context, action, summary, fingerprint);
    // The tool's own question card is the ask of the mode and the dial (RLY-6): the operator rules
    // alone decide here, and their deny refuses the call before any card; their ask is the card's.
    const ruled = await this.decide(workspaceId, { ...context, mode: 'chat', autonomy: 'actWithApproval' }, { ...action, tier: 'write' }, summary, fingerprint);
    if (ruled.decision !== 'ask') return ruled;
    return { ...ruled, decision: 'allow', explanation: `${ruled.explanation} The tool asks the operator itself with a question card before it acts (RLY-6).` };
  }

  /** Decides a shell command line (the built-in bash tool, Claude Code's Bash hook). */
  async decideCommand(workspaceId: string, context: ToolCallContext, command: string, toolName = 'bash', tier: ToolDescriptor['tier'] = 'execute', untrustedVariables: readonly string[] = []): Promise<PolicyVerdict> {
    // SEC-5: scripts, Makefiles, package.json scripts and git metadata the command runs are read from
    // the worktree. The push proxy's line describes ref updates the server received, not a program
    // run in the worktree (the agent's own `git push` was classified with its hooks already).
    const readsWorktree = context.worktreeRoot !== undefined && toolName !== 'git-push-proxy';
    const classification = classifyShellCommand(command, { ...(readsWorktree ? { worktreeRoot: context.worktreeRoot, files: worktreeFileReader(context.worktreeRoot!) } : {}), untrustedVariables });
    const fingerprint = fingerprintAction(classification.classes, classification.summary);
    const verdict = await this.decide(workspaceId, context, shellAction(classification, toolName, tier, fingerprint), classification.summary, fingerprint);
    return { ...verdict, classification };
  }

  /** POST /policy/probe: what would happen, and who would decide, without doing anything. */
  async probe(workspaceId: string, body: ProbeBody): Promise<ProbeResult> {
    let mode: Mode = 'chat';
    let autonomy: AutonomyLevel = DEFAULT_AUTONOMY;
    if (body.spaceId) {
      // MODE-2: a space absent from this workspace's file resolves to chat.
      const space = await this.spaces.findSpace(workspaceId, body.spaceId);
      mode = resolveDispatchMode(space ? { mode: space.mode } : null);
      autonomy = space?.autonomy ?? DEFAULT_AUTONOMY;
    }
    if (body.agentId) await this.agents.get(workspaceId, body.agentId);
    if (body.mode) mode = body.mode;
    if (body.autonomy) autonomy = body.autonomy;
    const context: ToolCallContext = { mode, autonomy, spaceId: body.spaceId ?? null, agentId: body.agentId ?? null };
    let verdict: PolicyVerdict;
    if (body.command !== undefined) {
      verdict = await this.decideCommand(workspaceId, context, body.command);
    } else if (body.url !== undefined) {
      // TOOL-1: the probe answers what web_fetch's gate would, domain rules included.
      const domain = httpUrlHost(body.url);
      if (domain === undefined) throw new ValidationError('url', 'must be an http(s) URL, for example https://example.com/page');
      const summary = toolCallSummary('web_fetch', { url: body.url });
      const fingerprint = fingerprintAction(['networkEgress'], summary);
      verdict = await this.decide(workspaceId, context, { classes: ['networkEgress'], writesWorktree: false, tier: 'read', toolName: 'web_fetch', fingerprint, domain }, summary, fingerprint);
    } else {
      const action = body.action!;
      const fingerprint = fingerprintAction(action.classes, action.summary);
      const tier = action.tier ?? (action.classes.length > 0 || action.writesWorktree ? 'execute' : 'read');
      verdict = await this.decide(
        workspaceId,
        context,
        { classes: action.classes, writesWorktree: action.writesWorktree ?? false, tier, fingerprint, ...(action.toolName ? { toolName: action.toolName } : {}) },
        action.summary,
        fingerprint,
      );
    }
    return {
      decision: verdict.decision,
      classes: [...verdict.classes],
      decidedBy: verdict.decidedBy,
      explanation: verdict.explanation,
      mode,
      autonomy,
      ...(verdict.classification ? { classification: verdict.classification } : {}),
      ...(body.url !== undefined ? { hostNamedByRule: verdict.hostNamedByRule === true } : {}),
    };
  }

  private async decide(workspaceId: string, context: ToolCallContext, action: PolicyAction, summary: string, fingerprint: string): Promise<PolicyVerdict> {
    const policy = await this.compiledFor(workspaceId);
    const base = { mode: context.mode, autonomy: context.autonomy, workspaceId };
    const scoped = (spaceId: string | null, agentId: string | null) => ({ ...base, ...(spaceId ? { spaceId } : {}), ...(agentId ? { agentId } : {}) });
    const own = decideAction(policy, action, scoped(context.spaceId, context.agentId));
    let decision: PolicyDecision = own;
    let inheritedFrom: InheritedRuleScope | undefined;
    // SEC-9: the same action under each inherited scope's rules, in this run's mode and dial; the
    // most restrictive wins (a tie keeps the run's own answer). A pinned verb stays pinned (CAP-6).
    if (own.decidedBy.scope !== 'pinned') {
      for (const scope of context.inheritedRules ?? []) {
        const inherited = decideAction(policy, action, scoped(scope.spaceId, scope.agentId));
        if (decisionSeverity(inherited.decision) > decisionSeverity(decision.decision)) {
          decision = inherited;
          inheritedFrom = scope;
        }
      }
    }
    const explanation = inheritedFrom ? `${decision.reason} Inherited from ${describeInheritedScope(inheritedFrom)} (SEC-9).` : decision.reason;
    return {
      decision: decision.decision,
      classes: decision.classes,
      decidedBy: decision.decidedBy,
      explanation,
      summary,
      fingerprint,
      ...(inheritedFrom ? { inheritedFrom } : {}),
      ...(decision.hostNamedByRule ? { hostNamedByRule: true } : {}),
    };
  }

  private async compiledFor(workspaceId: string): Promise<CompiledPolicy> {
    let policy = this.compiled.get(workspaceId);
    if (!policy) {
      const rules = await this.listRules(workspaceId);
      const core: CorePolicyRule[] = rules.map((rule) => ({ id: rule.id, scope: rule.scope, scopeId: rule.scopeId, match: rule.match, decision: rule.decision }));
      policy = compilePolicy(core);
      this.compiled.set(workspaceId, policy);
    }
    return policy;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
