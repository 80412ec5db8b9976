/**
 * An image's width and height in pixels, read from its header (PNG IHDR, GIF logical screen, WebP
 * VP8/VP8L/VP8X, JPEG start-of-frame), or null when the header does not say. Used to count what an
 * image costs a model request (CTX-1); the bytes were already judged an image by their magic bytes.
 * Plain bytes, not Node's Buffer: the web app's build reaches this module through the harness's types.
 */
export interface ImageDimensions {
  width: number;
  height: number;
}

export function imageDimensions(bytes: Uint8Array): ImageDimensions | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47 && ascii(bytes, 12, 16) === 'IHDR') return sized(view.getUint32(16), view.getUint32(20));
  if (bytes.length >= 10 && ascii(bytes, 0, 3) === 'GIF') return sized(view.getUint16(6, true), view.getUint16(8, true));
  if (bytes.length >= 30 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return webpDimensions(bytes, view);
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegDimensions(bytes, view);
  return null;
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** An unsigned little-endian integer of three bytes (WebP's VP8X canvas size). */
function uint24(bytes: Uint8Array, offset: number): number {
  return bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16);
}

function sized(width: number, height: number): ImageDimensions | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function webpDimensions(bytes: Uint8Array, view: DataView): ImageDimensions | null {
  const chunk = ascii(bytes, 12, 16);
  if (chunk === 'VP8 ') return sized(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return sized(uint24(bytes, 24) + 1, uint24(bytes, 27) + 1);
  return null;
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): not DHT (C4), JPG (C8) or DAC (CC). */
const START_OF_FRAME = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the JPEG's marker segments to its first start-of-frame, which holds the size. */
function jpegDimensions(bytes: Uint8Array, view: DataView): ImageDimensions | null {
  let offset = 2;
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1]!;
    // Fill bytes and stand-alone markers carry no length.
    if (marker === 0xff || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += marker === 0xff ? 1 : 2;
      continue;
    }
    if (START_OF_FRAME.has(marker)) return sized(view.getUint16(offset + 7), view.getUint16(offset + 5));
    offset += 2 + view.getUint16(offset + 2);
  }
  return null;
}
