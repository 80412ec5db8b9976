import type { HookSessions } from '../core/hook-sessions.js';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import type { AgentTransport } from './agent-transport.js';
import { BUILTIN_ADAPTER_ID } from './builtin/builtin-capabilities.js';
import { BuiltinTransport } from './builtin/builtin-transport.js';
import { ClaudeAgentSdkTransport, type AskUser } from './claude-agent-sdk/claude-agent-sdk-transport.js';
import { ClaudeCodeTransport } from './claude-code/claude-code-transport.js';
import { AcpTransport } from './acp/acp-transport.js';
import { CodexTransport } from './codex/codex-transport.js';
import { CopilotTransport } from './copilot/copilot-transport.js';
import { GrokTransport } from './grok/grok-transport.js';
import { CursorTransport } from './cursor/cursor-transport.js';
import { OpenAIImageTransport } from './openai-image/openai-image-transport.js';
import { unavailableCapabilities, type TransportCapabilities } from './transport-capabilities.js';

/** What the composition root hands every transport it builds (server-wide, never per run). */
export interface TransportDependencies {
  /** The one registry of run sessions the hook route and the push proxy read (ADP-3, POL-6). */
  hookSessions: HookSessions;
  /** The OS sandbox the built-in `bash` runs in (SBX-1). */
  commandSandbox: CommandSandbox;
  /** Paths no sandboxed runner may see (the data root: operator token, databases). */
  hiddenPaths: string[];
  /** SEC-6: start an external runner even when no OS sandbox wraps it (`serve --allow-unsandboxed-runners`). */
  allowUnsandboxedRunners: boolean;
  /** Question cards for runtimes that ask through their own tool (RLY-4), with the workspace's timeout. */
  askUser: AskUser;
  /** The built-in harness's model-call limits. */
  maxTokens: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
  /** Told each built-in model call's duration in seconds (the process's `/metrics` histogram). */
  observeModelCall?: (seconds: number) => void;
}

/**
 * Every transport this server ships, one entry each (ADP-1): adding a provider means one folder
 * under `src/adapters/<name>/` implementing `AgentTransport` and one line here.
 */
export const TRANSPORT_FACTORIES: ReadonlyArray<(deps: TransportDependencies) => AgentTransport> = [
  (deps) =>
    new BuiltinTransport({
      commandSandbox: deps.commandSandbox,
      hookSessions: deps.hookSessions,
      maxTokens: deps.maxTokens,
      ...(deps.idleTimeoutMs !== undefined ? { idleTimeoutMs: deps.idleTimeoutMs } : {}),
      ...(deps.maxRetries !== undefined ? { maxRetries: deps.maxRetries } : {}),
      ...(deps.observeModelCall ? { observeModelCall: deps.observeModelCall } : {}),
    }),
  (deps) => new ClaudeCodeTransport({ hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners }),
  (deps) => new ClaudeAgentSdkTransport({ hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners, askUser: deps.askUser }),
  // RLY-7: DeepSeek is the same SDK path with DeepSeek's Anthropic-compatible endpoint and key.
  (deps) => new ClaudeAgentSdkTransport({ backend: 'deepseek', hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners, askUser: deps.askUser }),
  // RLY-7: OpenAI Codex through `codex app-server`, its model reached through the model proxy.
  (deps) => new CodexTransport({ hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners, askUser: deps.askUser }),
  // RLY-7: any Agent Client Protocol agent, its command per agent from CONTROL_CENTER_ACP_AGENTS.
  (deps) => new AcpTransport({ hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners }),
  // RLY-7: GitHub Copilot through @github/copilot-sdk, offline with the model proxy as its BYOK provider.
  (deps) => new CopilotTransport({ hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners, askUser: deps.askUser }),
  // RLY-7: Copilot's extension engine: the same runtime, the mode as a message line, no permission checks.
  (deps) => new CopilotTransport({ engine: 'extension', hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners, askUser: deps.askUser }),
  // RLY-7: the npm Grok CLI headless, its model (xAI) reached through the model proxy; bounded only by the OS sandbox.
  (deps) => new GrokTransport({ hookSessions: deps.hookSessions, hiddenPaths: deps.hiddenPaths, allowUnsandboxed: deps.allowUnsandboxedRunners }),
  // RLY-7: Cursor through @cursor/sdk, in this process: refused unless unsandboxed runners are allowed (SEC-6).
  (deps) => new CursorTransport({ hookSessions: deps.hookSessions, commandSandbox: deps.commandSandbox, allowUnsandboxed: deps.allowUnsandboxedRunners, askUser: deps.askUser }),
  // RLY-7: OpenAI's images API; the image is stored in the workspace and shown in the conversation.
  () => new OpenAIImageTransport(),
];

/**
 * The transports a run can be given, by the agent's adapter id (ADP-1): an agent naming no adapter
 * runs on the built-in harness; one naming an adapter this server lacks gets none (its run fails
 * at once, and its declaration supports nothing).
 */
export class TransportRegistry {
  private readonly byId = new Map<string, AgentTransport>();

  /** Adds a transport, replacing one registered under the same id (tests swap in a configured one). */
  register(transport: AgentTransport): void {
    this.byId.set(transport.id, transport);
  }

  /** The transport registered under `adapterId`, if any. */
  get(adapterId: string): AgentTransport | undefined {
    return this.byId.get(adapterId);
  }

  /** The transport an agent runs on, or undefined when its adapter is not registered here. */
  for(agent: { adapterId: string | null }): AgentTransport | undefined {
    return this.get(agent.adapterId ?? BUILTIN_ADAPTER_ID);
  }

  /** What the agent's transport declares (routes refuse what it lacks with 409). */
  capabilitiesFor(agent: { adapterId: string | null }): TransportCapabilities {
    return this.for(agent)?.capabilities ?? unavailableCapabilities(agent.adapterId ?? BUILTIN_ADAPTER_ID);
  }

  /** Every registered transport's declaration, the built-in harness first. */
  capabilities(): TransportCapabilities[] {
    const all = [...this.byId.values()].map((transport) => transport.capabilities);
    return [...all.filter((declared) => declared.adapterId === BUILTIN_ADAPTER_ID), ...all.filter((declared) => declared.adapterId !== BUILTIN_ADAPTER_ID)];
  }
}
