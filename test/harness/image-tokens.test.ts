/**
 * CTX-1 with TOOL-3: an image in a request is counted by its size in pixels at Anthropic's rate
 * (width × height / 750, after the provider's downscaling), read from the header of each format the
 * attachments take; never by its base64 characters.
 */
import { deflateSync, crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { imageDimensions } from '../../src/core/image-dimensions.js';
import { estimateImageTokens, MAX_IMAGE_TOKENS } from '../../src/harness/image-tokens.js';
import { estimateMessageTokens } from '../../src/harness/token-estimate.js';

function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const body = Buffer.concat([Buffer.from('IHDR', 'latin1'), ihdr]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), body, crc, deflateSync(Buffer.alloc(1))]);
}

/** A JPEG whose start-of-frame comes after an APP1 segment, as a camera's EXIF puts it. */
function jpeg(width: number, height: number, frame = 0xc2): Buffer {
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0x00, 0x10]), Buffer.alloc(14)]);
  const sof = Buffer.from([0xff, frame, 0x00, 0x11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof, Buffer.alloc(16)]);
}

function webp(chunk: 'VP8 ' | 'VP8L' | 'VP8X', width: number, height: number): Buffer {
  const data = Buffer.alloc(20);
  if (chunk === 'VP8 ') {
    // A 3-byte frame tag, the start code, then 14-bit width and height.
    data.set([0x9d, 0x01, 0x2a], 3);
    data.writeUInt16LE(width, 6);
    data.writeUInt16LE(height, 8);
  } else if (chunk === 'VP8L') {
    // The signature byte, then width − 1 and height − 1 in 14 bits each.
    data[0] = 0x2f;
    data.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
  } else {
    // Flags and three reserved bytes, then width − 1 and height − 1 in 24 bits each.
    data.writeUIntLE(width - 1, 4, 3);
    data.writeUIntLE(height - 1, 7, 3);
  }
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.alloc(4), Buffer.from('WEBP', 'latin1'), Buffer.from(chunk, 'latin1'), Buffer.alloc(4), data]);
}

describe('image size and token cost (CTX-1, TOOL-3)', () => {
  it('reads the size of PNG, GIF, JPEG (after other segments) and the three WebP kinds', () => {
    expect(imageDimensions(pngHeader(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageDimensions(Buffer.from('GIF89a\x20\x03\x58\x02\x00\x00\x00;', 'latin1'))).toEqual({ width: 800, height: 600 });
    expect(imageDimensions(jpeg(1024, 768))).toEqual({ width: 1024, height: 768 });
    expect(imageDimensions(jpeg(300, 200, 0xc0))).toEqual({ width: 300, height: 200 });
    expect(imageDimensions(webp('VP8 ', 320, 240))).toEqual({ width: 320, height: 240 });
    expect(imageDimensions(webp('VP8L', 5000, 3))).toEqual({ width: 5000, height: 3 });
    expect(imageDimensions(webp('VP8X', 70000, 2))).toEqual({ width: 70000, height: 2 });
    expect(imageDimensions(Buffer.from('not an image'))).toBeNull();
  });

  it('costs width × height / 750 tokens, scaled down as the provider does, and the most when the header says nothing', () => {
    const image = (bytes: Buffer) => ({ mediaType: 'image/png', data: bytes.toString('base64') });
    expect(estimateImageTokens(image(pngHeader(300, 150)))).toBe(60);
    expect(estimateImageTokens(image(pngHeader(1000, 1000)))).toBe(1334);
    // Past about 1.15 megapixels the provider scales down: a 4000 × 3000 photo costs what ~1239 × 929 does.
    expect(estimateImageTokens(image(pngHeader(4000, 3000)))).toBe(1534);
    // Past 1568 pixels on the long edge too: a 3136 × 100 strip is 1568 × 50.
    expect(estimateImageTokens(image(pngHeader(3136, 100)))).toBe(105);
    expect(estimateImageTokens({ mediaType: 'image/png', data: Buffer.from('\x89PNG').toString('base64') })).toBe(MAX_IMAGE_TOKENS);
  });

  it('a user message costs its text plus its images, not their base64 characters', () => {
    const text = { role: 'user' as const, content: 'What is this?' };
    const big = pngHeader(300, 150).toString('base64').repeat(50);
    const withImage = { ...text, images: [{ mediaType: 'image/png', data: big }] };
    expect(estimateMessageTokens(withImage)).toBe(estimateMessageTokens(text) + 60);
  });
});
