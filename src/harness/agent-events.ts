import type { AssistantMessage, ModelUsage, ToolCallBlock } from '../llm/model-types.js';
import type { ToolResult } from '../tools/define-tool.js';
import type { ContextUsage } from './context-window.js';

/**
 * Everything the agent loop reports, as one discriminated union (ARCHITECTURE convention 2). The run
 * executor persists these to the run log and the SSE stream serializes them; the loop itself knows
 * nothing about spaces, databases or HTTP.
 */
export type AgentEvent =
  | { type: 'model_call_start'; index: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'assistant_message'; message: AssistantMessage }
  | { type: 'tool_call_start'; call: ToolCallBlock }
  | { type: 'tool_call_end'; call: ToolCallBlock; result: ToolResult; executed: boolean; durationMs: number }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'steering_injected'; text: string }
  | { type: 'reminder_injected'; text: string; attempt: number }
  | { type: 'output_verb_delivered'; toolName: string }
  | { type: 'looping_detected'; toolName: string; repeats: number }
  | { type: 'looping_cleared' }
  /** An external runner's output could not be understood (a malformed stream line, …). */
  | { type: 'protocol_error'; source: string; message: string; line?: string }
  /**
   * RLY-5: a plan turn produced a plan for review: the web shows the "Plan ready for review" board
   * (Implement in autopilot / Stop here and prompt myself / Stop here). `native`: the provider's own
   * plan-exit signal (the SDK's ExitPlanMode); `answer`: a plan-like final answer.
   */
  | { type: 'plan_ready'; plan: string; source: 'native' | 'answer' }
  /**
   * CTX-1 stage 2: older turns were replaced by a summary the model wrote. `trigger`: the budget was
   * reached, the provider refused a request as too long, or the operator asked (`/compact`). Later
   * turns' history starts from this summary; the conversation shows it with its cost.
   */
  | {
      type: 'context_compacted';
      trigger: 'budget' | 'prompt_too_long' | 'operator';
      focus: string | null;
      summary: string;
      /** The message that replaced the compacted ones, as later requests send it. */
      summaryMessage: string;
      replacedMessages: number;
      keptMessages: number;
      tokensBefore: number;
      tokensAfter: number;
      usage: ModelUsage | null;
      costUsd: number | null;
      durationMs: number;
    }
  /** CTX-1: what filled the run's last request, in estimated tokens (`/context` shows the latest). */
  | { type: 'context_usage'; usage: ContextUsage };

/** How a loop ended. `completed` may still carry `deliverableFailed` (PLAN-6: the state stays completed). */
export interface AgentLoopResult {
  outcome: 'completed' | 'failed' | 'cancelled';
  error: string | null;
  deliverableFailed: boolean;
  usage: ModelUsage;
  modelCalls: number;
}
