import OpenAI from 'openai';
import type { AgentTransport, TransportModelRequest, TransportResult, TransportRunContext } from '../agent-transport.js';
import { cancelledResult, emptyUsage } from '../runner-setup.js';
import { generatedImagePath, MAX_IMAGE_BYTES, storeGeneratedImage } from './generated-image-store.js';
import { OPENAI_IMAGE_ADAPTER_ID, OPENAI_IMAGE_CAPABILITIES } from './openai-image-capabilities.js';

export { OPENAI_IMAGE_ADAPTER_ID } from './openai-image-capabilities.js';

/** The model an OpenAI Image agent uses when it names none. */
const DEFAULT_IMAGE_MODEL = 'gpt-image-1';

export interface OpenAIImageTransportOptions {
  /** Largest image accepted from the provider (bytes); default {@link MAX_IMAGE_BYTES}. */
  maxImageBytes?: number;
}

/** The one image of an images-API answer, as far as this transport reads it. */
interface ImageDatum {
  b64_json?: unknown;
  url?: unknown;
}

/**
 * Generates images through OpenAI's images API (RLY-7) with the `openai` SDK, from the server's
 * process: the turn's prompt is the image prompt, the answer's one image is stored in the workspace
 * (content-addressed, size-limited, magic bytes checked) and the reply shows it from an authenticated
 * route. The provider's answer is hostile: only inline `b64_json` is accepted — a URL is refused,
 * never fetched (the server would otherwise fetch whatever a provider names).
 * Modes have no effect (RLY-3): the capabilities say so, and the mode is never sent.
 */
export class OpenAIImageTransport implements AgentTransport {
  readonly id = OPENAI_IMAGE_ADAPTER_ID;
  readonly capabilities = OPENAI_IMAGE_CAPABILITIES;

  constructor(private readonly options: OpenAIImageTransportOptions = {}) {}

  resolveModel(request: TransportModelRequest): string {
    if (!this.endpoint(request).apiKey) throw new Error('OpenAI Image needs an OpenAI API key: set it in the workspace settings (apiKeys.openai) or OPENAI_API_KEY');
    return request.agent.modelId ?? DEFAULT_IMAGE_MODEL;
  }

  async run(context: TransportRunContext): Promise<TransportResult> {
    if (context.signal.aborted) return cancelledResult();
    context.setSandbox('none: no process runs (one images-API request from the server)');
    const { apiKey, baseURL } = this.endpoint({ providerSettings: context.providerSettings ?? { apiKeys: {}, baseUrls: {} }, env: context.env });
    const model = context.agent.modelId ?? DEFAULT_IMAGE_MODEL;
    const failed = (error: string): TransportResult => ({ outcome: 'failed', error, deliverableFailed: false, usage: emptyUsage(), costUsd: null, finalText: '' });
    if (!apiKey) return failed('OpenAI Image needs an OpenAI API key (apiKeys.openai or OPENAI_API_KEY)');
    const client = new OpenAI({ apiKey, ...(baseURL ? { baseURL } : {}), maxRetries: 0 });
    // BUD-1: the one model call waits here while a spend limit is reached (its decision is in the Inbox).
    await context.beforeModelCall?.(context.signal);
    if (context.signal.aborted) return cancelledResult();
    let answer: OpenAI.Images.ImagesResponse;
    try {
      // gpt-image models always answer base64 and refuse the parameter; older ones must be asked for it.
      answer = await client.images.generate({ model, prompt: context.prompt, n: 1, ...(model.startsWith('gpt-image') ? {} : { response_format: 'b64_json' as const }) }, { signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) return cancelledResult();
      return failed(`The images API failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const datum = (Array.isArray(answer?.data) ? answer.data[0] : undefined) as ImageDatum | undefined;
    const maxBytes = this.options.maxImageBytes ?? MAX_IMAGE_BYTES;
    const decoded = decodeImage(datum, maxBytes);
    if ('refused' in decoded) return failed(`The image was refused: ${decoded.refused}`);
    let stored: Awaited<ReturnType<typeof storeGeneratedImage>>;
    try {
      stored = await storeGeneratedImage(context.workspaceDir, decoded.bytes, maxBytes);
    } catch (error) {
      return failed(`The image was refused: ${error instanceof Error ? error.message : String(error)}`);
    }
    const finalText = `![Generated image](${generatedImagePath(context.workspaceId, stored.name)})`;
    context.emit({ type: 'text_delta', text: finalText });
    const reported = (answer as { usage?: { input_tokens?: unknown; output_tokens?: unknown } }).usage;
    const usage = { ...emptyUsage(), inputTokens: Number(reported?.input_tokens ?? 0) || 0, outputTokens: Number(reported?.output_tokens ?? 0) || 0 };
    // Image models are not in the price table: the tokens are recorded, the cost counts as unknown (0).
    context.recordModelCall?.({ provider: 'openai', model, usage, costUsd: 0, priced: false });
    return { outcome: 'completed', error: null, deliverableFailed: false, usage, costUsd: null, finalText };
  }

  /** The key and base URL: the workspace's settings first, then the server's environment. */
  private endpoint(request: Pick<TransportModelRequest, 'providerSettings' | 'env'>): { apiKey: string | undefined; baseURL: string | undefined } {
    return {
      apiKey: request.providerSettings.apiKeys?.openai ?? request.env.OPENAI_API_KEY,
      baseURL: request.providerSettings.baseUrls?.openai ?? request.env.OPENAI_BASE_URL,
    };
  }
}

/** The image bytes of an answer's datum, or why they are refused (a URL, no image, bad base64, too large). */
function decodeImage(datum: ImageDatum | undefined, maxBytes: number): { bytes: Buffer } | { refused: string } {
  if (!datum || typeof datum !== 'object') return { refused: 'the answer holds no image' };
  if (typeof datum.b64_json !== 'string' || datum.b64_json.length === 0) {
    return { refused: typeof datum.url === 'string' ? 'the provider answered with a URL, which the Control Center never fetches (only inline base64 images are accepted)' : 'the answer holds no base64 image' };
  }
  const encoded = datum.b64_json;
  // Checked before decoding, so an oversized answer is never expanded in memory.
  if (Math.floor((encoded.length * 3) / 4) > maxBytes + 3) return { refused: `the image is larger than the ${maxBytes}-byte limit` };
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return { refused: 'the image is not valid base64' };
  return { bytes: Buffer.from(encoded, 'base64') };
}
