import { collectModelResponse, type ModelResponse } from '../../src/llm/collect-model-response.js';
import type { ModelEvent, ModelRequest, ModelTool, StreamFn } from '../../src/llm/model-types.js';

export const readTool: ModelTool = {
  name: 'read',
  description: 'Read a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-5-5',
    system: 'You are a careful assistant.',
    messages: [{ role: 'user', content: 'Read a.txt' }],
    tools: [readTool],
    maxTokens: 1024,
    ...overrides,
  };
}

/** Runs a stream to the end, keeping both the raw events and the folded response. */
export async function runStream(
  streamFn: StreamFn,
  request: ModelRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ events: ModelEvent[]; response: ModelResponse }> {
  const events: ModelEvent[] = [];
  async function* tap() {
    for await (const event of streamFn(request, signal)) {
      events.push(event);
      yield event;
    }
  }
  const response = await collectModelResponse(tap());
  return { events, response };
}

/** The invariant every stream keeps: exactly one `done`, and it comes last. */
export function expectSingleDoneLast(events: ModelEvent[]): void {
  const doneIndexes = events.flatMap((event, index) => (event.type === 'done' ? [index] : []));
  if (doneIndexes.length !== 1 || doneIndexes[0] !== events.length - 1) {
    throw new Error(`expected exactly one final done event, got ${JSON.stringify(events.map((event) => event.type))}`);
  }
}
