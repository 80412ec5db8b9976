import type { AgentOptions, LocalAgentStore, Run, RunResult, RunStatus, SDKAgent, SDKCustomToolResult, SDKJsonValue, SDKMessage, SendOptions } from '@cursor/sdk';
import type { CursorSdk } from '../../src/adapters/cursor/cursor-sdk-seam.js';

/**
 * One step of a scripted Cursor turn, played by the fake SDK as the real one would report it:
 * - `text`: an assistant message;
 * - `hostTool`: the model calls one of the host's `customTools` (reported as an `mcp` call to the
 *   `custom-user-tools` provider, executed through the host's callback, its result kept);
 * - `cursorTool`: the model calls one of Cursor's own tools; `effect` is what that tool does, run only
 *   if the host has not cancelled the run on seeing the call (a real SDK may already be running it);
 * - `mcpTool`: a call of the Control Center's MCP server, made for real over HTTP with the URL and
 *   headers the host configured (a JSON-RPC `tools/call`);
 * - `claimMcpTool`: a completed call of the Control Center's MCP server reported, never made (a lying stream);
 * - `createPlan`: Cursor's plan tool; `fail`: the run ends in `error`; `crash`: the stream throws;
 * - `hang`: the run waits until cancelled.
 */
export type FakeCursorStep =
  | { text: string }
  | { hostTool: string; args: Record<string, SDKJsonValue> }
  | { cursorTool: string; args?: Record<string, unknown>; effect?: () => void | Promise<void> }
  | { createPlan: string }
  | { mcpTool: string; args: Record<string, unknown> }
  | { claimMcpTool: string }
  | { usage: { inputTokens: number; outputTokens: number } }
  | { fail: string }
  | { crash: string }
  | { hang: true };

/** What the fake saw of one `send`. */
export interface FakeCursorSend {
  agentId: string;
  message: string;
  options: SendOptions | undefined;
  /** The options of the `Agent.create` / `Agent.resume` this agent came from. */
  agentOptions: AgentOptions;
  /** The host tools' results in call order. */
  hostToolResults: SDKCustomToolResult[];
  /** Cursor tool calls whose effect ran (the host did not stop them in time). */
  effectsRun: string[];
  cancelled: boolean;
}

/**
 * A stand-in for `@cursor/sdk` at the transport's seam (the real SDK needs Cursor's backend): local
 * agents kept in memory by id (resume of an unknown id fails like the SDK's AgentNotFoundError), each
 * `send` playing the next scripted turn. It records everything it was given for the tests to read.
 */
export class FakeCursorSdk implements CursorSdk {
  readonly created: AgentOptions[] = [];
  readonly resumed: Array<{ agentId: string; options: AgentOptions }> = [];
  readonly sends: FakeCursorSend[] = [];
  readonly storeDirs: string[] = [];
  private readonly turns: FakeCursorStep[][] = [];
  private readonly known = new Set<string>();
  private nextId = 1;
  /** When set, `create` throws this (the SDK failing to start: bad key, no backend). */
  createError: Error | null = null;

  /** Queues the turns the next `send`s play, in order. */
  script(...turns: FakeCursorStep[][]): void {
    this.turns.push(...turns);
  }

  async create(options: AgentOptions): Promise<SDKAgent> {
    if (this.createError) throw this.createError;
    this.created.push(options);
    const agentId = `local-agent-${this.nextId++}`;
    this.known.add(agentId);
    return this.agent(agentId, options);
  }

  async resume(agentId: string, options: AgentOptions): Promise<SDKAgent> {
    if (!this.known.has(agentId)) throw new Error(`Agent ${agentId} not found`);
    this.resumed.push({ agentId, options });
    return this.agent(agentId, options);
  }

  async store(dir: string): Promise<LocalAgentStore> {
    this.storeDirs.push(dir);
    return { kind: 'fake-jsonl-store', dir } as unknown as LocalAgentStore;
  }

  private agent(agentId: string, agentOptions: AgentOptions): SDKAgent {
    const send = async (message: string | { text: string }, options?: SendOptions): Promise<Run> => {
      const steps = this.turns.shift() ?? [{ text: 'No scripted turn left.' }];
      const record: FakeCursorSend = { agentId, message: typeof message === 'string' ? message : message.text, options, agentOptions, hostToolResults: [], effectsRun: [], cancelled: false };
      this.sends.push(record);
      return new FakeRun(agentId, `run-${this.sends.length}`, steps, record);
    };
    return {
      agentId,
      model: agentOptions.model,
      send,
      close: () => undefined,
      reload: async () => undefined,
      [Symbol.asyncDispose]: async () => undefined,
      listArtifacts: async () => [],
      downloadArtifact: async () => Buffer.alloc(0),
      getUsage: async () => ({ runs: [] }) as never,
    };
  }
}

class FakeRun implements Run {
  status: RunStatus = 'running';
  error?: { message: string };
  private wakeCancel: () => void = () => undefined;
  private finished: Promise<void>;
  private finish: () => void = () => undefined;

  constructor(
    readonly agentId: string,
    readonly id: string,
    private readonly steps: FakeCursorStep[],
    private readonly record: FakeCursorSend,
  ) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  supports(): boolean {
    return true;
  }
  unsupportedReason(): undefined {
    return undefined;
  }
  async conversation(): Promise<never[]> {
    return [];
  }
  onDidChangeStatus(): () => void {
    return () => undefined;
  }

  async cancel(): Promise<void> {
    this.record.cancelled = true;
    if (this.status === 'running') this.status = 'cancelled';
    this.wakeCancel();
  }

  async wait(): Promise<RunResult> {
    await this.finished;
    return { id: this.id, status: this.status === 'running' ? 'finished' : this.status, ...(this.error ? { error: this.error } : {}) };
  }

  async *stream(): AsyncGenerator<SDKMessage, void> {
    const base = { agent_id: this.agentId, run_id: this.id };
    let call = 0;
    try {
      for (const step of this.steps) {
        if (this.status !== 'running') return;
        if ('text' in step) yield { ...base, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: step.text }] } };
        else if ('usage' in step) yield { ...base, type: 'usage', usage: { ...step.usage, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: step.usage.inputTokens + step.usage.outputTokens } };
        else if ('createPlan' in step) {
          const callId = `call-${++call}`;
          yield { ...base, type: 'tool_call', call_id: callId, name: 'createPlan', status: 'running', args: { plan: step.createPlan } };
          yield { ...base, type: 'tool_call', call_id: callId, name: 'createPlan', status: 'completed', args: { plan: step.createPlan }, result: {} };
        } else if ('mcpTool' in step) {
          const callId = `call-${++call}`;
          const args = { providerIdentifier: 'control-center', toolName: step.mcpTool, args: step.args };
          yield { ...base, type: 'tool_call', call_id: callId, name: 'mcp', status: 'running', args };
          const server = this.record.agentOptions.mcpServers?.['control-center'];
          if (!server || !('url' in server)) throw new Error('no control-center MCP server was configured');
          const response = await fetch(server.url, {
            method: 'POST',
            headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: call, method: 'tools/call', params: { name: step.mcpTool, arguments: step.args } }),
          });
          const body = (await response.json()) as { error?: unknown; result?: { isError?: boolean } };
          const ok = response.ok && !body.error && !body.result?.isError;
          yield { ...base, type: 'tool_call', call_id: callId, name: 'mcp', status: ok ? 'completed' : 'error', args, result: body as never };
        } else if ('claimMcpTool' in step) {
          const callId = `call-${++call}`;
          const args = { providerIdentifier: 'control-center', toolName: step.claimMcpTool, args: {} };
          yield { ...base, type: 'tool_call', call_id: callId, name: 'mcp', status: 'running', args };
          yield { ...base, type: 'tool_call', call_id: callId, name: 'mcp', status: 'completed', args, result: { content: [{ type: 'text', text: 'ok' }] } as never };
        } else if ('hostTool' in step) {
          const callId = `call-${++call}`;
          const args = { providerIdentifier: 'custom-user-tools', toolName: step.hostTool, args: step.args };
          yield { ...base, type: 'tool_call', call_id: callId, name: 'mcp', status: 'running', args };
          const tool = this.record.agentOptions.local?.customTools?.[step.hostTool];
          const result: SDKCustomToolResult = tool ? await tool.execute(step.args, { toolCallId: callId }) : { content: [{ type: 'text', text: `no such tool: ${step.hostTool}` }], isError: true };
          this.record.hostToolResults.push(result);
          yield { ...base, type: 'tool_call', call_id: callId, name: 'mcp', status: 'completed', args, result: result as never };
        } else if ('cursorTool' in step) {
          const callId = `call-${++call}`;
          yield { ...base, type: 'tool_call', call_id: callId, name: step.cursorTool, status: 'running', args: step.args ?? {} };
          // The host has seen the call (the consumer handles each message before asking for the next).
          if (this.status !== 'running') return;
          await step.effect?.();
          this.record.effectsRun.push(step.cursorTool);
          yield { ...base, type: 'tool_call', call_id: callId, name: step.cursorTool, status: 'completed', args: step.args ?? {}, result: 'done' };
        } else if ('fail' in step) {
          this.status = 'error';
          this.error = { message: step.fail };
          return;
        } else if ('crash' in step) {
          this.status = 'error';
          throw new Error(step.crash);
        } else if ('hang' in step) {
          await new Promise<void>((resolve) => (this.wakeCancel = resolve));
          return;
        }
      }
      if (this.status === 'running') this.status = 'finished';
    } finally {
      this.finish();
    }
  }
}
