import type { ToolCallBlock, ToolResultMessage } from '../llm/model-types.js';

/** How a tool result that was saved whole says where (see saved-tool-output.ts). */
const SAVED_PATH = /saved whole at (\S+?)[:;,)]?(\s|$)/;

const MAX_ARGUMENT_CHARS = 160;

/**
 * CTX-1 stage 1: the one-line stub that stands in for an old tool result in a request — what it was
 * (the call, its size) and how to get it again (read the file it was saved to, or run the call again).
 */
export function elidedToolResult(result: ToolResultMessage, call: ToolCallBlock | undefined): ToolResultMessage {
  const argumentsText = call ? JSON.stringify(call.input) : '';
  const shown = argumentsText.length > MAX_ARGUMENT_CHARS ? `${argumentsText.slice(0, MAX_ARGUMENT_CHARS)}…` : argumentsText;
  const what = call ? `the ${result.isError ? 'failed ' : ''}result of ${call.name} ${shown}` : 'a tool result';
  const saved = SAVED_PATH.exec(result.content)?.[1];
  const again = saved ? `it is saved whole at ${saved}: read it with the read tool` : 'run the call again if you need it';
  return {
    role: 'tool',
    toolCallId: result.toolCallId,
    content: `[Elided to keep the context window: ${what} (${result.content.length} characters); ${again}.]`,
    isError: result.isError,
  };
}
