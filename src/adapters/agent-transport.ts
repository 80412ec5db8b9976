import type { AutonomyLevel, Mode } from '../core/modes.js';
import type { ToolDescriptor } from '../core/tool-descriptor.js';
import type { AgentEvent } from '../harness/agent-events.js';
import type { ModelMessage, ModelUsage, PromptImage } from '../llm/model-types.js';
import type { ProviderId } from '../llm/provider-ids.js';
import type { Agent } from '../schemas/agent.js';
import type { PushRemote } from '../core/hook-sessions.js';
import type { TransportAction, TransportGateResult } from '../core/transport-gate.js';
import type { ProviderSideTool } from '../llm/provider-side-tools.js';
import type { WorkspaceSettings } from '../schemas/settings.js';
import type { Tool, ToolResult } from '../tools/define-tool.js';
import type { ToolCallBlock } from '../llm/model-types.js';
import type { WorktreeOperations } from '../worktree/worktree-operations.js';
import type { TransportCapabilities } from './transport-capabilities.js';
import type { SkillsTarget } from './skills-target.js';

export type { TransportAction, TransportGateResult } from '../core/transport-gate.js';

/**
 * Who a run is and where it speaks: the one shape every stage of the run pipeline, every transport
 * and every mode-tool provider reads a run's identity from.
 */
export interface RunScope {
  workspaceId: string;
  runId: string;
  agent: Agent;
  spaceId: string | null;
  /** The conversation the run speaks in (posts, plans, questions, runner session); null for a child run, which reports to its parent. */
  conversationId: string | null;
  /** Fixed at turn start (MODE-2). */
  mode: Mode;
  autonomy: AutonomyLevel;
}

/**
 * The run's own tools, for a transport that runs the agent loop inside this process (the built-in
 * harness). Every call goes through `execute`, the one chokepoint: input validation, policy,
 * approval, then the tool (POL-1, HAR-3).
 */
export interface RunToolbox {
  /** The tools on the run's surface (HAR-3), nothing else. */
  tools: Tool[];
  execute(call: ToolCallBlock, signal: AbortSignal): Promise<ToolResult>;
  /**
   * The file and shell operations the run's tools act through from now on: the transport's
   * sandboxed worktree (SBX-1). Until it is called they act on an unsandboxed one at `worktreePath`.
   */
  useWorktree(worktree: WorktreeOperations): void;
}

/** Everything a transport needs to run one turn; the run executor builds it. */
export interface TransportRunContext extends RunScope {
  prompt: string;
  /**
   * TOOL-3: images the operator attached to the prompt (checked by magic bytes and size). Only a
   * transport that declares `imageAttachments` is ever given any; the others' messages are refused.
   */
  images?: PromptImage[];
  history: ModelMessage[];
  /** CTX-1 `/compact [focus]`: compact the conversation and end the turn (the built-in harness; others are never given it). */
  compact?: { focus: string | null };
  /** Absolute path of the conversation's worktree. */
  worktreePath: string;
  /**
   * What the server recorded when it made the checkout (SEC-3): the source repository's object
   * directory the checkout shares (mounted read-only) and the remotes pushes may go to. Sandbox
   * mounts and push targets come from here only, never from files inside the worktree. Absent for a
   * plain folder.
   */
  checkout?: { sharedObjectsDir: string | null; pushRemotes: PushRemote[] };
  /** The assembled system prompt (persona, Agent instructions, Skills, mode block). */
  systemPrompt: string;
  /** The mode's surface of product tools (what the MCP server offers this run). */
  surfacedTools: ToolDescriptor[];
  /** Where the run's MCP tools are served, with a run-scoped token. */
  mcp: { url: string; token: string };
  /** Base URL of this server (hooks and the push proxy call back into it). */
  serverUrl: string;
  /** Environment for provider keys/base URLs (the scripted model server in tests). */
  env: Record<string, string | undefined>;
  /** Data directory of the workspace (for per-run scratch files: hook scripts, settings). */
  workspaceDir: string;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** Applies the same policy + approval gate the built-in harness uses (fail closed). */
  gate(action: TransportAction, signal: AbortSignal): Promise<TransportGateResult>;
  /**
   * The policy engine's verdict alone, without opening an approval: for a transport that asks the
   * operator its own way (Copilot's Ask cards, RLY-7), so a policy deny still wins before any card.
   */
  decide?(action: TransportAction): Promise<Pick<TransportGateResult, 'decision' | 'reason' | 'decidedBy' | 'classes'>>;
  /** Records which sandbox wrapped the run (`bubblewrap`, `seatbelt`, `none: sanitized env`). */
  setSandbox(description: string): void;
  /** Session id kept per conversation so the next turn can resume it. */
  previousSessionId: string | null;
  saveSessionId(sessionId: string): Promise<void>;
  /** The run's tools and their chokepoint, given only to a transport whose capabilities declare `toolExecution: 'host'`. */
  toolbox?: RunToolbox;
  /**
   * The mode's completion contract when its verb is on the surface (HAR-4); null when there is none.
   * `delivered()` is the host's record: true once the host executed the verb successfully for this run
   * (for an external runner, the Control Center MCP server did), whatever the runner reports.
   */
  completion?: { outputVerb: string; reminder: string; delivered(): boolean } | null;
  /**
   * The workspace's provider keys and base URLs, for a transport that calls the model itself, and its
   * runner keys, for a transport that calls its vendor from this process (Cursor).
   */
  providerSettings?: Pick<WorkspaceSettings, 'apiKeys' | 'baseUrls'> & Partial<Pick<WorkspaceSettings, 'runnerKeys' | 'runnerBaseUrls'>>;
  /** Operator text to inject before the next model call (HAR-5), for a transport that declares `steer`. */
  drainSteering?(): string[];
  /**
   * The turn is about to end: takes the operator text still waiting and refuses any more (the steer
   * route then answers 409 instead of accepting text no turn would read, HAR-5, RLY-9).
   */
  closeSteering?(): string[];
  /** Resolves once the run is not paused (HAR-5), for a transport that declares `pauseResume`. */
  waitWhilePaused?(signal: AbortSignal): Promise<void>;
  /**
   * SEC-8: whether the run's policy allows a tool the model provider runs on its side (web search,
   * an MCP server, code execution), as the model proxy will decide it; a transport whose runner
   * offers such a tool on every request (Codex's web_search) switches it off when the answer is no,
   * so the proxy does not refuse every model request of the run.
   */
  providerToolAllowed?(tool: ProviderSideTool): Promise<boolean>;
  /**
   * BUD-1: resolves when the run may make its next model call: at a spend limit the run is paused
   * with a budget decision in the Inbox, and this waits for it (or for the run's end). A transport
   * that calls models in this process awaits it before every call.
   */
  beforeModelCall?(signal: AbortSignal): Promise<void>;
  /** BUD-1: one model call's usage and cost, recorded as it is made (an in-process transport's own calls). */
  recordModelCall?(call: RecordedModelCall): void;
}

/** One model call's usage by kind and its cost, as a transport measured it (BUD-1). */
export interface RecordedModelCall {
  provider: string | null;
  model: string;
  usage: ModelUsage;
  costUsd: number;
  /** False when no price was known for the model (its cost then counts as 0). */
  priced: boolean;
}

/** What a transport is asked before a run is marked running (see `AgentTransport.resolveModel`). */
export interface TransportModelRequest {
  agent: Agent;
  providerSettings: Pick<WorkspaceSettings, 'apiKeys' | 'baseUrls'>;
  env: Record<string, string | undefined>;
}

export interface TransportResult {
  outcome: 'completed' | 'failed' | 'cancelled';
  error: string | null;
  /** The mode's output verb was never delivered (only where the transport can observe it). */
  deliverableFailed: boolean;
  usage: ModelUsage;
  /** Cost as the runner reported it, when it does. */
  costUsd: number | null;
  finalText: string;
}

/** A way to run agents other than the built-in harness (ADP-1). */
export interface AgentTransport {
  readonly id: string;
  /** What the transport supports; routes refuse the controls it lacks (409) and the honesty matrix may not claim more. */
  readonly capabilities: TransportCapabilities;
  /**
   * Checked before the run is marked running: the model id the run records, or a thrown error that
   * fails the run before a checkout is made (a model the built-in harness cannot reach). Without it
   * the run records the agent's model id.
   */
  resolveModel?(request: TransportModelRequest): string;
  /**
   * SEC-8: the one provider an external runner of this agent reaches through the model proxy (the
   * provider whose proxy base URL the transport hands it). The run token spends that provider and no
   * other; without it (or with null) the token spends none.
   */
  modelProvider?(agent: Agent): ProviderId | null;
  /**
   * TRUTH-4: true when the runner may never call its {@link modelProvider} (an ACP agent can bring its
   * own model and key), so a run is not refused before it starts for that provider's missing key.
   */
  readonly modelProviderOptional?: boolean;
  /**
   * SKL-5: for a runner whose own skill discovery reads folders, where the prepare stage writes the
   * scanned skills of a run (and how). Without it nothing is materialized for the runner.
   */
  skillsTarget?(run: { workspaceDir: string; runId: string }): SkillsTarget;
  /**
   * SKL-5: for a runner whose own skill discovery reads folders of the checkout and can be pointed
   * nowhere else (ACP agents), those worktree-relative folders (`.agents/skills`): the prepare stage
   * writes the scanned skills there, confined to the checkout (`materializeWorktreeSkills`).
   */
  readonly worktreeSkillsFolders?: readonly string[];
  run(context: TransportRunContext): Promise<TransportResult>;
}
