import type { AssistantContentBlock, AssistantMessage, DoneEvent, ModelEvent, ModelUsage, StopReason } from './model-types.js';

/** Everything one model call produced, folded from its events. */
export interface ModelResponse {
  /** The assistant turn to append to the conversation (thinking, text and tool calls in stream order). */
  message: AssistantMessage;
  /** All text of the turn joined, for display and assertions. */
  text: string;
  toolCalls: Array<{ id: string; name: string; input: Record<string, unknown> }>;
  usage: ModelUsage | undefined;
  stopReason: StopReason;
  errorMessage: string | undefined;
  done: DoneEvent;
}

/**
 * Folds {@link ModelEvent}s into an assistant message as they arrive. The harness feeds it each
 * event while streaming them to the UI, then appends `result().message` to the conversation.
 */
export class ModelResponseCollector {
  private readonly blocks: AssistantContentBlock[] = [];
  private usage: ModelUsage | undefined;
  private doneEvent: DoneEvent | undefined;

  push(event: ModelEvent): void {
    switch (event.type) {
      case 'text_delta': {
        const last = this.blocks.at(-1);
        if (last?.type === 'text') last.text += event.text;
        else this.blocks.push({ type: 'text', text: event.text });
        break;
      }
      case 'thinking_delta':
        // Display only; the replayable block comes with `thinking_complete`.
        break;
      case 'thinking_complete':
        this.blocks.push({
          type: 'thinking',
          text: event.text,
          ...(event.signature !== undefined ? { signature: event.signature } : {}),
          ...(event.redactedData !== undefined ? { redactedData: event.redactedData } : {}),
        });
        break;
      case 'tool_call':
        this.blocks.push({ type: 'tool_call', id: event.id, name: event.name, input: event.input });
        break;
      case 'usage': {
        const { type: _type, ...usage } = event;
        this.usage = usage;
        break;
      }
      case 'done':
        this.doneEvent = event;
        break;
    }
  }

  result(): ModelResponse {
    const done: DoneEvent = this.doneEvent ?? {
      type: 'done',
      stopReason: 'error',
      errorMessage: 'the model stream ended without a done event',
    };
    const content = this.blocks.filter((block) => block.type !== 'text' || block.text.length > 0);
    return {
      message: { role: 'assistant', content },
      text: content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
      toolCalls: content.flatMap((block) => (block.type === 'tool_call' ? [{ id: block.id, name: block.name, input: block.input }] : [])),
      usage: this.usage,
      stopReason: done.stopReason,
      errorMessage: done.errorMessage,
      done,
    };
  }
}

/** Drains a model stream into a {@link ModelResponse}. */
export async function collectModelResponse(stream: AsyncIterable<ModelEvent>): Promise<ModelResponse> {
  const collector = new ModelResponseCollector();
  for await (const event of stream) collector.push(event);
  return collector.result();
}
