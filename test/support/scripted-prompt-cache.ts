/**
 * A provider's prompt cache, as the scripted model server simulates it when asked (`promptCache`):
 * providers cache a request's prefix — tools, then system prompt, then messages, in that order — and
 * bill the part of a new request that repeats a recently sent prefix as cache reads. The simulation
 * takes the longest common prefix of the request's serialized prompt with the recent requests (the
 * previous request of the same conversation, or a compaction's summary request, which shares its
 * prefix); tokens are four characters each, as the server counts them. The `cache_control` markers a
 * request carries are part of the text, so a prefix reaches up to the previous request's last marker,
 * as at a provider. It is generous where a request changes mid-history (an elided result): a provider
 * reads only up to a breakpoint it wrote before, the simulation up to the first changed character.
 */
export class ScriptedPromptCache {
  private recent: string[] = [];

  /** The cache-read tokens of this request, remembering its prompt for the next ones. */
  read(body: Record<string, unknown>): number {
    const prompt = JSON.stringify([body.tools ?? [], body.system ?? '', body.messages ?? body.input ?? []]);
    const shared = Math.max(0, ...this.recent.map((previous) => commonPrefixLength(previous, prompt)));
    this.recent = [prompt, ...this.recent].slice(0, RECENT_PROMPTS);
    return Math.floor(shared / 4);
  }

  clear(): void {
    this.recent = [];
  }
}

/** How many earlier prompts a new one is compared with (a conversation and its side requests). */
const RECENT_PROMPTS = 4;

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  // Compare in blocks first: the prompts are long (hundreds of KB) and mostly equal.
  const BLOCK = 4_096;
  while (index + BLOCK <= limit && a.slice(index, index + BLOCK) === b.slice(index, index + BLOCK)) index += BLOCK;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}
