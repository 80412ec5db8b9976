import type { AutonomyLevel, Mode } from '../core/modes.js';
import type { ToolDescriptor } from '../core/tool-descriptor.js';
import type { AgentEvent } from '../harness/agent-events.js';
import type { ModelMessage, ModelUsage } from '../llm/model-types.js';
import type { Agent } from '../schemas/agent.js';
import type { PushRemote } from '../core/hook-sessions.js';
import type { TransportAction, TransportGateResult } from '../core/transport-gate.js';
import type { TransportCapabilities } from './transport-capabilities.js';

export type { TransportAction, TransportGateResult } from '../core/transport-gate.js';

/** Everything a transport needs to run one turn; the run executor builds it. */
export interface TransportRunContext {
  workspaceId: string;
  runId: string;
  agent: Agent;
  spaceId: string | null;
  conversationId: string | null;
  /** Fixed at turn start (MODE-2). */
  mode: Mode;
  autonomy: AutonomyLevel;
  prompt: string;
  history: ModelMessage[];
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
  /** Records which sandbox wrapped the run (`bubblewrap`, `seatbelt`, `none: sanitized env`). */
  setSandbox(description: string): void;
  /** Session id kept per conversation so the next turn can resume it. */
  previousSessionId: string | null;
  saveSessionId(sessionId: string): Promise<void>;
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
  run(context: TransportRunContext): Promise<TransportResult>;
}
