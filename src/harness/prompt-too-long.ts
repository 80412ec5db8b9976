/**
 * How providers say a request does not fit the model's window: Anthropic's 400
 * `invalid_request_error` "prompt is too long: N tokens > M maximum", OpenAI's
 * `context_length_exceeded` ("This model's maximum context length is …"), and the wordings of
 * OpenAI-compatible servers (vLLM, Ollama, DeepSeek).
 */
const PROMPT_TOO_LONG = /prompt is too long|context_length_exceeded|maximum context length|context length exceeded|context window|too many (input )?tokens|input is too long|reduce the length of the messages/i;

/** CTX-1: true when a failed model call was refused because its prompt is too long (then: compact and retry once). */
export function isPromptTooLong(errorMessage: string | undefined): boolean {
  return errorMessage !== undefined && PROMPT_TOO_LONG.test(errorMessage);
}

/** The counts a refusal states: Anthropic "N tokens > M maximum", OpenAI "maximum context length is M tokens … resulted in N tokens". */
export function refusalCounts(errorMessage: string | undefined): { tokens: number; maximum: number } | null {
  if (!errorMessage) return null;
  const anthropic = /(\d+) tokens > (\d+) maximum/.exec(errorMessage);
  if (anthropic) return { tokens: Number(anthropic[1]), maximum: Number(anthropic[2]) };
  const maximum = /maximum context length is (\d+)/.exec(errorMessage);
  const tokens = /resulted in (\d+) tokens/.exec(errorMessage);
  return maximum && tokens ? { tokens: Number(tokens[1]), maximum: Number(maximum[1]) } : null;
}
