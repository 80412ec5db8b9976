import type { AgentEvent } from '../../harness/agent-events.js';
import type { AssistantContentBlock, ModelUsage, ToolCallBlock } from '../../llm/model-types.js';
import { MCP_SERVER_NAME } from './claude-code-args.js';

/** The `result` message Claude Code ends a turn with, as far as the transport uses it. */
export interface ClaudeResultSummary {
  subtype: string;
  isError: boolean;
  text: string;
  sessionId: string | null;
  costUsd: number | null;
  usage: ModelUsage;
  numTurns: number | null;
  /** `permission_denials` as reported (tool names and ids the CLI itself refused). */
  permissionDenials: unknown[];
}

/** `system/init`, as far as the transport uses it. */
export interface ClaudeInitSummary {
  sessionId: string | null;
  permissionMode: string | null;
  tools: string[];
  mcpServers: Array<{ name: string; status: string }>;
  model: string | null;
}

/** What the hook decided for one tool call (from the hook session), attached to its run-log entry. */
export interface ObservedHookDecision {
  allow: boolean;
  decision: string;
  decidedBy: { scope: string; ruleId: string | null };
  classes: readonly string[];
}

export interface StreamTranslatorOptions {
  /** The mode's output verb when it is on the surface (HAR-4), else null. */
  outputVerb: string | null;
  /** The hook's decision for a tool call, when the hook decided it. */
  hookDecision?: (toolUseId: string) => ObservedHookDecision | null;
  now?: () => number;
}

/**
 * Results Claude Code writes when it refused a call itself (the tool never ran). Best effort: the CLI
 * has no structured flag for it; the hook's own refusals are known exactly (`refusedByHook`).
 */
const CLI_REFUSALS = [/haven't granted it yet/, /^<tool_use_error>Error: No such tool available/, /while in plan mode/, /^PreToolUse:\w+ hook error/, /was blocked\. For security/];

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function number(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Claude Code usage → the harness's (input excludes cache reads and writes, as everywhere). */
export function toModelUsage(raw: unknown): ModelUsage {
  const usage = asRecord(raw) ?? {};
  return {
    inputTokens: number(usage.input_tokens),
    outputTokens: number(usage.output_tokens),
    cacheReadTokens: number(usage.cache_read_input_tokens),
    cacheWriteTokens: number(usage.cache_creation_input_tokens),
  };
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        const record = asRecord(part);
        return record?.type === 'text' && typeof record.text === 'string' ? record.text : JSON.stringify(part);
      })
      .join('\n');
  }
  return content === undefined ? '' : JSON.stringify(content);
}

/**
 * Turns Claude Code's stream-json messages into the harness's AgentEvents (ADP-3): text deltas (from
 * `--include-partial-messages`), one `assistant_message` per assistant line, `tool_call_start`/`end`
 * for the native tools it observes (never gates: gating is the hook's job), usage and cost from the
 * `result`. Calls of the Control Center's own MCP tools are not re-emitted here — the MCP server
 * records them as it executes them — but they are watched for the mode's output verb.
 */
export class ClaudeStreamTranslator {
  init: ClaudeInitSummary | null = null;
  result: ClaudeResultSummary | null = null;
  verbDelivered = false;
  modelCalls = 0;
  /** The newest top-level assistant text, for the final answer when `result` carries none. */
  lastText = '';
  private readonly openCalls = new Map<string, { call: ToolCallBlock; startedAt: number; product: boolean }>();
  private readonly now: () => number;
  private readonly mcpPrefix = `mcp__${MCP_SERVER_NAME}__`;

  constructor(private readonly options: StreamTranslatorOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  translate(message: Json): AgentEvent[] {
    switch (message.type) {
      case 'system':
        if (message.subtype === 'init') this.init = this.readInit(message);
        return [];
      case 'stream_event':
        return this.streamEvent(message);
      case 'assistant':
        return this.assistant(message);
      case 'user':
        return this.toolResults(message);
      case 'result':
        return this.finish(message);
      default:
        return [];
    }
  }

  /** Tool calls that started and never got a result (the process died mid-call). */
  unfinishedCalls(): ToolCallBlock[] {
    return [...this.openCalls.values()].filter((open) => !open.product).map((open) => open.call);
  }

  private readInit(message: Json): ClaudeInitSummary {
    const servers = Array.isArray(message.mcp_servers) ? message.mcp_servers : [];
    return {
      sessionId: typeof message.session_id === 'string' ? message.session_id : null,
      permissionMode: typeof message.permissionMode === 'string' ? message.permissionMode : null,
      tools: Array.isArray(message.tools) ? message.tools.filter((tool): tool is string => typeof tool === 'string') : [],
      mcpServers: servers.flatMap((server) => {
        const record = asRecord(server);
        return record ? [{ name: String(record.name), status: String(record.status) }] : [];
      }),
      model: typeof message.model === 'string' ? message.model : null,
    };
  }

  private streamEvent(message: Json): AgentEvent[] {
    if (message.parent_tool_use_id) return [];
    const event = asRecord(message.event);
    if (!event) return [];
    if (event.type === 'message_start') {
      this.modelCalls += 1;
      return [{ type: 'model_call_start', index: this.modelCalls - 1 }];
    }
    if (event.type === 'content_block_delta') {
      const delta = asRecord(event.delta);
      if (delta?.type === 'text_delta' && typeof delta.text === 'string') return [{ type: 'text_delta', text: delta.text }];
      if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string') return [{ type: 'thinking_delta', text: delta.thinking }];
    }
    return [];
  }

  private assistant(message: Json): AgentEvent[] {
    const body = asRecord(message.message);
    const content = Array.isArray(body?.content) ? body.content : [];
    const topLevel = !message.parent_tool_use_id;
    const blocks: AssistantContentBlock[] = [];
    const events: AgentEvent[] = [];
    for (const part of content) {
      const block = asRecord(part);
      if (!block) continue;
      if (block.type === 'text' && typeof block.text === 'string') {
        blocks.push({ type: 'text', text: block.text });
        if (topLevel && block.text.trim()) this.lastText = block.text;
      } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
        blocks.push({ type: 'thinking', text: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) });
      } else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        const call: ToolCallBlock = { type: 'tool_call', id: block.id, name: block.name, input: asRecord(block.input) ?? {} };
        blocks.push(call);
        const product = block.name.startsWith(this.mcpPrefix);
        this.openCalls.set(block.id, { call, startedAt: this.now(), product });
        if (!product) events.push({ type: 'tool_call_start', call });
      }
    }
    if (topLevel && blocks.length > 0) events.unshift({ type: 'assistant_message', message: { role: 'assistant', content: blocks } });
    return events;
  }

  private toolResults(message: Json): AgentEvent[] {
    const body = asRecord(message.message);
    const content = Array.isArray(body?.content) ? body.content : [];
    const events: AgentEvent[] = [];
    for (const part of content) {
      const block = asRecord(part);
      if (block?.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
      const open = this.openCalls.get(block.tool_use_id);
      if (!open) continue;
      this.openCalls.delete(block.tool_use_id);
      const text = toolResultText(block.content);
      const isError = block.is_error === true;
      if (open.product) {
        const verb = this.options.outputVerb;
        if (verb && !isError && open.call.name === `${this.mcpPrefix}${verb}` && !this.verbDelivered) {
          this.verbDelivered = true;
          events.push({ type: 'output_verb_delivered', toolName: verb });
        }
        continue;
      }
      const hook = this.options.hookDecision?.(block.tool_use_id) ?? null;
      const refused = (hook !== null && !hook.allow) || (isError && CLI_REFUSALS.some((pattern) => pattern.test(text)));
      const details: Record<string, unknown> = { observedIn: 'claude-code' };
      if (message.parent_tool_use_id) details.subagentOf = message.parent_tool_use_id;
      if (hook) details.hook = { decision: hook.allow ? 'allow' : 'deny', policyDecision: hook.decision, decidedBy: hook.decidedBy, classes: hook.classes };
      events.push({
        type: 'tool_call_end',
        call: open.call,
        result: { content: text, isError, details },
        executed: !refused,
        durationMs: Math.max(0, this.now() - open.startedAt),
      });
    }
    return events;
  }

  private finish(message: Json): AgentEvent[] {
    const usage = toModelUsage(message.usage);
    this.result = {
      subtype: typeof message.subtype === 'string' ? message.subtype : 'unknown',
      isError: message.is_error === true,
      text: typeof message.result === 'string' ? message.result : '',
      sessionId: typeof message.session_id === 'string' ? message.session_id : null,
      costUsd: typeof message.total_cost_usd === 'number' ? message.total_cost_usd : null,
      usage,
      numTurns: typeof message.num_turns === 'number' ? message.num_turns : null,
      permissionDenials: Array.isArray(message.permission_denials) ? message.permission_denials : [],
    };
    return [{ type: 'usage', usage }];
  }
}
