/**
 * An image's width and height in pixels, read from its header (PNG IHDR, GIF logical screen, WebP
 * VP8/VP8L/VP8X, JPEG start-of-frame), or null when the header does not say. Used to count what an
 * image costs a model request (CTX-1); the bytes were already judged an image by their magic bytes.
 */
export interface ImageDimensions {
  width: number;
  height: number;
}

export function imageDimensions(bytes: Buffer): ImageDimensions | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return sized(bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  }
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF') return sized(bytes.readUInt16LE(6), bytes.readUInt16LE(8));
  if (bytes.length >= 30 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return webpDimensions(bytes);
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegDimensions(bytes);
  return null;
}

function sized(width: number, height: number): ImageDimensions | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function webpDimensions(bytes: Buffer): ImageDimensions | null {
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return sized(bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return sized(bytes.readUIntLE(24, 3) + 1, bytes.readUIntLE(27, 3) + 1);
  return null;
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): not DHT (C4), JPG (C8) or DAC (CC). */
const START_OF_FRAME = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the JPEG's marker segments to its first start-of-frame, which holds the size. */
function jpegDimensions(bytes: Buffer): ImageDimensions | null {
  let offset = 2;
  while (offset + 9 <= bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1]!;
    // Fill bytes and stand-alone markers carry no length.
    if (marker === 0xff || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += marker === 0xff ? 1 : 2;
      continue;
    }
    if (START_OF_FRAME.has(marker)) return sized(bytes.readUInt16BE(offset + 7), bytes.readUInt16BE(offset + 5));
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  return null;
}
