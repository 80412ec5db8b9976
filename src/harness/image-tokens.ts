import { imageDimensions } from '../core/image-dimensions.js';
import type { PromptImage } from '../llm/model-types.js';

/**
 * CTX-1: what an image costs a request, in tokens, at Anthropic's rate: width × height / 750 after
 * the provider scales it down to at most 1568 pixels on the long edge and about 1.15 megapixels (so
 * at most about 1,600). OpenAI's tile rate comes out lower for the same picture (a 1024×1024 image is
 * 765 tokens at high detail against 1,398 here), so one rate for both errs on the side the estimate
 * is meant to (CHARS_PER_TOKEN): a request it lets through is rarely refused as too long.
 */
export const MAX_IMAGE_TOKENS = 1_600;

const MAX_EDGE = 1_568;
const MAX_PIXELS = 1_150_000;
const PIXELS_PER_TOKEN = 750;

/** Kept per image object: decoding the base64 to read the header is not redone for every request. */
const costs = new WeakMap<PromptImage, number>();

export function estimateImageTokens(image: PromptImage): number {
  let tokens = costs.get(image);
  if (tokens === undefined) {
    const size = imageDimensions(base64Bytes(image.data));
    if (!size) {
      tokens = MAX_IMAGE_TOKENS;
    } else {
      const scale = Math.min(1, MAX_EDGE / Math.max(size.width, size.height), Math.sqrt(MAX_PIXELS / (size.width * size.height)));
      tokens = Math.min(MAX_IMAGE_TOKENS, Math.max(1, Math.ceil((size.width * scale * (size.height * scale)) / PIXELS_PER_TOKEN)));
    }
    costs.set(image, tokens);
  }
  return tokens;
}

/** The image's bytes; `atob` exists in Node and in the browser alike (this module is in both builds). */
function base64Bytes(data: string): Uint8Array {
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index += 1) bytes[index] = text.charCodeAt(index);
  return bytes;
}

export function estimateImagesTokens(images: readonly PromptImage[] | undefined): number {
  let total = 0;
  for (const image of images ?? []) total += estimateImageTokens(image);
  return total;
}
