import type { AssistantMessage, ModelMessage, ToolCallBlock, ToolResultMessage, UserMessage } from '../llm/model-types.js';

/** The result given to a call whose own result is not in the transcript (its run ended first, or it was cut off). */
export const MISSING_RESULT_TEXT = 'No result was recorded for this call (the run ended or the context was compacted before it finished).';

/**
 * Makes a transcript put together from records (earlier turns, a compaction's kept tail) one that
 * both wire protocols accept: every tool call answered by a result right after its message, no
 * result without its call, neighbouring assistant messages without calls merged, and a user message
 * first. Messages that need no change are kept as the same objects (their serialized JSON and token
 * estimate are cached per object).
 *
 * It repairs one message at a time, so a long conversation's history is repaired once and extended
 * by each turn's new messages (CTX-1): {@link fork} copies the state, {@link finished} closes a copy.
 */
export class TranscriptRepair {
  private repaired: ModelMessage[] = [];
  private open: ToolCallBlock[] = [];
  private answered = new Set<string>();
  /** Made once, so a transcript that needs it sends the same object every turn (its JSON and estimate stay cached). */
  private conversationStart: UserMessage | null = null;

  push(message: ModelMessage): void {
    if (message.role === 'tool') {
      if (this.open.some((call) => call.id === message.toolCallId) && !this.answered.has(message.toolCallId)) {
        this.answered.add(message.toolCallId);
        this.repaired.push(message);
      }
      return;
    }
    this.closeOpenCalls();
    if (message.role === 'assistant') {
      if (message.content.length === 0) return;
      const previous = this.repaired.at(-1);
      if (previous?.role === 'assistant' && !previous.content.some((block) => block.type === 'tool_call')) {
        this.repaired[this.repaired.length - 1] = { role: 'assistant', content: [...previous.content, ...message.content] } satisfies AssistantMessage;
      } else {
        this.repaired.push(message);
      }
      this.open = message.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
      return;
    }
    this.repaired.push(message);
  }

  /** An independent copy: what is pushed to either does not reach the other. */
  fork(): TranscriptRepair {
    const copy = new TranscriptRepair();
    copy.repaired = [...this.repaired];
    copy.open = this.open;
    copy.answered = new Set(this.answered);
    copy.conversationStart = this.conversationStart;
    return copy;
  }

  /** The repaired transcript so far, as a new array: calls still open get their missing results, and a user message comes first. */
  finished(): ModelMessage[] {
    const transcript = [...this.repaired, ...this.missingResults()];
    if (transcript[0]?.role !== 'user') transcript.unshift((this.conversationStart ??= { role: 'user', content: '(conversation start)' }));
    return transcript;
  }

  private closeOpenCalls(): void {
    this.repaired.push(...this.missingResults());
    this.open = [];
    this.answered = new Set();
  }

  private missingResults(): ToolResultMessage[] {
    return this.open.filter((call) => !this.answered.has(call.id)).map((call) => ({ role: 'tool', toolCallId: call.id, content: MISSING_RESULT_TEXT, isError: true }));
  }
}

export function repairTranscript(messages: readonly ModelMessage[]): ModelMessage[] {
  const repair = new TranscriptRepair();
  for (const message of messages) repair.push(message);
  return repair.finished();
}
