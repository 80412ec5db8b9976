import type { AgentTransport, RunScope, TransportResult, TransportRunContext } from '../../adapters/agent-transport.js';
import { markForgeReadableRemotes } from '../../git/forge-read-access.js';
import { checkoutPushRemotes } from '../../git/git-worktrees.js';
import { nowIso } from '../../ids.js';
import type { ModelMessage, PromptImage } from '../../llm/model-types.js';
import type { WorkspaceSettings } from '../../schemas/settings.js';
import type { Tool } from '../../tools/define-tool.js';
import type { ModelBroker } from '../model-broker.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { ActiveRun, ActiveRuns } from './active-runs.js';
import type { RunToolCalls } from './gate-tool-calls.js';
import type { PreparedRun } from './prepare-run.js';
import type { RunRecorder } from './record-run.js';
import type { RunTokens } from './run-tokens.js';
import { OutputVerbDelivery } from './output-verb-delivery.js';
import { findTransportSessionId, saveTransportSessionId } from '../../store/repositories/transport-session-repository.js';
import { runsToolsOnHost } from '../../adapters/transport-capabilities.js';
import type { SpendingRun, SpendLimitGate } from '../budgets/spend-limit-gate.js';

/** A run in progress whose product tools an external runner may call over MCP. */
export interface McpRun {
  tools: Map<string, Tool>;
  toolCalls: RunToolCalls;
  recorder: RunRecorder;
  /** HAR-4: the host's record of the run's output verb, fed by the MCP server's tool path; null without a contract. */
  delivery: OutputVerbDelivery | null;
}

/** What the transport stage uses of the server. */
export interface RunOnTransportDeps {
  workspaces: WorkspaceService;
  active: ActiveRuns;
  runTokens: RunTokens;
  modelBroker?: ModelBroker | undefined;
  env: Record<string, string | undefined>;
  /** The server's own base URL (external runners call back into it). */
  serverUrl: string;
  /** Where an external run's product tools are listed for the MCP server while it runs. */
  mcpRuns: Map<string, McpRun>;
  /** BUD-1: spend limits, checked before every in-process model call (external ones: at the model proxy). */
  spendGate?: SpendLimitGate | undefined;
}

/** The run handed to its transport, as the earlier stages left it. */
export interface TransportStageRun {
  scope: RunScope;
  prompt: string;
  /** TOOL-3: images attached to the prompt's message. */
  images: PromptImage[];
  history: ModelMessage[];
  /** CTX-1 `/compact [focus]`: compact and end, no model turn. */
  compact?: { focus: string | null };
  workspaceDir: string;
  prepared: PreparedRun;
  toolCalls: RunToolCalls;
  recorder: RunRecorder;
  activeRun: ActiveRun;
  settings: WorkspaceSettings;
}

/**
 * The transport stage of the run pipeline (ADP-1): one context for every transport. An in-process
 * one gets the run's toolbox; an external runner gets the product tools over MCP with a run-scoped
 * token, its runner session per conversation, and its model traffic metered by the broker (SEC-6).
 */
export async function runOnTransport(deps: RunOnTransportDeps, transport: AgentTransport, run: TransportStageRun): Promise<TransportResult> {
  const { scope, prepared, toolCalls, recorder } = run;
  const { workspaceId, runId, agent, conversationId } = scope;
  const db = (await deps.workspaces.handle(workspaceId)).database.db;
  const external = !runsToolsOnHost(transport.capabilities);
  // HAR-4: whether the output verb was delivered is what the host saw execute, never what a runner says.
  const delivery = prepared.contract ? new OutputVerbDelivery(prepared.contract.outputVerb) : null;
  // The runner has its own file and shell tools; the MCP server offers only the product's tools.
  if (external) deps.mcpRuns.set(runId, { tools: prepared.mcpTools, toolCalls, recorder, delivery });
  const token = deps.runTokens.issue({ workspaceId, runId, agentId: agent.id });
  const broker = external ? deps.modelBroker : undefined;
  // A child run never resumes or overwrites the conversation's runner session (it is its parent's).
  const sessionKey = conversationId ? { conversationId, agentId: agent.id, adapterId: transport.id } : null;
  const previousSessionId = sessionKey && external ? await findTransportSessionId(db, sessionKey) : null;
  const checkout = prepared.checkout.checkout;
  const context: TransportRunContext = {
    ...scope,
    prompt: run.prompt,
    images: run.images,
    history: run.history,
    ...(run.compact ? { compact: run.compact } : {}),
    worktreePath: prepared.worktreePath,
    // POL-6: remotes on a forge the workspace holds a token for are fetched through the push proxy.
    ...(checkout ? { checkout: { sharedObjectsDir: checkout.sourceObjectsDir, pushRemotes: markForgeReadableRemotes(checkoutPushRemotes(checkout), run.settings) } } : {}),
    systemPrompt: prepared.systemPrompt,
    surfacedTools: prepared.surfaced.filter((tool) => (external ? prepared.mcpTools : prepared.tools).has(tool.name)),
    mcp: { url: `${deps.serverUrl}/mcp`, token },
    serverUrl: deps.serverUrl,
    env: deps.env,
    workspaceDir: run.workspaceDir,
    signal: run.activeRun.controller.signal,
    emit: (event) => {
      if (!external) {
        // An in-process transport's calls are the host's own executions (the built-in harness's loop).
        if (event.type === 'tool_call_end' && event.executed) delivery?.noteExecuted(event.call.name, event.result);
        recorder.emit(event);
        return;
      }
      // An external runner executes its own native tools; it reports which calls ran.
      if (event.type === 'tool_call_end' && event.executed) recorder.executedCalls.add(event.call.id);
      // Its "verb delivered" is a claim: it stands only when the MCP server executed the verb (HAR-4).
      const screened = delivery ? delivery.screen(event) : event.type === 'output_verb_delivered' ? null : event;
      if (screened) recorder.emit(screened);
    },
    gate: (action, gateSignal) => toolCalls.gateAction(action, gateSignal),
    decide: (action) => toolCalls.decideAction(action),
    setSandbox: (description) => recorder.setSandbox(description),
    previousSessionId,
    saveSessionId: async (sessionId) => {
      if (sessionKey) await saveTransportSessionId(db, sessionKey, sessionId, nowIso());
    },
    ...(external ? {} : { toolbox: toolCalls }),
    completion: prepared.contract && delivery ? { outputVerb: prepared.contract.outputVerb, reminder: prepared.contract.reminder, delivered: () => delivery.delivered } : null,
    providerSettings: run.settings,
    drainSteering: () => run.activeRun.steering.splice(0),
    closeSteering: () => {
      run.activeRun.steeringClosed = true;
      return run.activeRun.steering.splice(0);
    },
    waitWhilePaused: (waitSignal) => deps.active.waitWhilePaused(runId, waitSignal),
    providerToolAllowed: async (tool) => (await toolCalls.decideProviderTool(tool, { record: false })).decision === 'allow',
    // BUD-1: an in-process transport's own model calls are checked and recorded here; an external
    // runner's go through the model proxy, which checks and meters them itself.
    ...(deps.spendGate && !external ? spendingOf(deps.spendGate, { workspaceId, runId, agentId: agent.id }, recorder) : {}),
  };
  try {
    // SEC-8: the token spends the provider the transport points its runner at, nothing else.
    // TRUTH-4: a call that finds the model unusable (no key, nothing at the base URL) ends the run at
    // once; the runner's own retries would only delay the failure.
    // SEC-8: provider-side tools its model requests name are decided by this run's own gate.
    broker?.open(runId, workspaceId, transport.modelProvider?.(agent) ?? null, () => run.activeRun.controller.abort(), (tool) => toolCalls.decideProviderTool(tool));
    const ran = await transport.run(context);
    const fatalCause = broker?.fatalCause(runId);
    const result: TransportResult = fatalCause ? { ...ran, outcome: 'failed', error: fatalCause } : ran;
    // A delivery the host executed but the runner never reported (an ACP agent silent about MCP calls).
    const unreported = external ? delivery?.unreported() : null;
    if (unreported) recorder.emit(unreported);
    // SEC-6: the tokens the broker measured are exact (every model response passed through it), so
    // they replace what the runner reported about itself; so does the cost, unless a model the
    // catalog cannot price answered (then the runner's own figure, if it gave one, is kept).
    const metered = broker?.close(runId);
    if (!metered) return result;
    return { ...result, usage: metered.usage, costUsd: metered.priced ? metered.costUsd : (result.costUsd ?? metered.costUsd) };
  } finally {
    deps.runTokens.revoke(runId);
    broker?.close(runId);
  }
}

/** BUD-1: the spend-limit hooks of an in-process transport's context. */
function spendingOf(gate: SpendLimitGate, run: SpendingRun, recorder: RunRecorder): Pick<TransportRunContext, 'beforeModelCall' | 'recordModelCall'> {
  return {
    beforeModelCall: (signal) => gate.beforeModelCall(run, signal),
    recordModelCall: (call) => {
      // A lost ledger row must not end the run; it is said in the run log instead.
      gate.record(run, call).catch((error: unknown) => recorder.log.event('spend_not_recorded', { reason: error instanceof Error ? error.message : String(error) }));
    },
  };
}
