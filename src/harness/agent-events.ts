import type { AssistantMessage, ModelUsage, ToolCallBlock } from '../llm/model-types.js';
import type { ToolResult } from '../tools/define-tool.js';

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
  | { type: 'plan_ready'; plan: string; source: 'native' | 'answer' };

/** How a loop ended. `completed` may still carry `deliverableFailed` (PLAN-6: the state stays completed). */
export interface AgentLoopResult {
  outcome: 'completed' | 'failed' | 'cancelled';
  error: string | null;
  deliverableFailed: boolean;
  usage: ModelUsage;
  modelCalls: number;
}
