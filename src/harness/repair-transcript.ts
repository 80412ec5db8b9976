import type { AssistantMessage, ModelMessage, ToolCallBlock } from '../llm/model-types.js';

/** The result given to a call whose own result is not in the transcript (its run ended first, or it was cut off). */
export const MISSING_RESULT_TEXT = 'No result was recorded for this call (the run ended or the context was compacted before it finished).';

/**
 * Makes a transcript put together from records (earlier turns, a compaction's kept tail) one that
 * both wire protocols accept: every tool call answered by a result right after its message, no
 * result without its call, neighbouring assistant messages without calls merged, and a user message
 * first. Messages that need no change are kept as the same objects (their serialized JSON and token
 * estimate are cached per object).
 */
export function repairTranscript(messages: readonly ModelMessage[]): ModelMessage[] {
  const repaired: ModelMessage[] = [];
  let open: ToolCallBlock[] = [];
  const answered = new Set<string>();
  const closeOpenCalls = () => {
    for (const call of open) {
      if (!answered.has(call.id)) repaired.push({ role: 'tool', toolCallId: call.id, content: MISSING_RESULT_TEXT, isError: true });
    }
    open = [];
    answered.clear();
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (open.some((call) => call.id === message.toolCallId) && !answered.has(message.toolCallId)) {
        answered.add(message.toolCallId);
        repaired.push(message);
      }
      continue;
    }
    closeOpenCalls();
    if (message.role === 'assistant') {
      if (message.content.length === 0) continue;
      const previous = repaired.at(-1);
      if (previous?.role === 'assistant' && !previous.content.some((block) => block.type === 'tool_call')) {
        repaired[repaired.length - 1] = { role: 'assistant', content: [...previous.content, ...message.content] } satisfies AssistantMessage;
      } else {
        repaired.push(message);
      }
      open = message.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
      continue;
    }
    repaired.push(message);
  }
  closeOpenCalls();
  if (repaired[0]?.role !== 'user') repaired.unshift({ role: 'user', content: '(conversation start)' });
  return repaired;
}
