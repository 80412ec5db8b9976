import type { IncomingMessage } from 'node:http';
import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/**
 * A request body that went past one of its caps (SEC-10). The route answers 413 with the limit's
 * name; whatever consumed the body stops, so nothing past the cap is forwarded or stored.
 */
export class BodyLimitError extends Error {
  readonly statusCode = 413;
  constructor(
    /** Which cap: `compressedBytes`, `decompressedBytes` or a caller's own (`commandSectionBytes`). */
    readonly limit: string,
    readonly bytes: number,
  ) {
    super(`the request body exceeds the ${limit} limit of ${bytes} bytes`);
    this.name = 'BodyLimitError';
  }
}

/** A `Content-Encoding` the server does not decode for this route (415, names the header). */
export class BodyEncodingError extends Error {
  readonly statusCode = 415;
  constructor(
    readonly encoding: string,
    accepted: readonly string[] = ['identity', 'gzip', 'deflate', 'br'],
  ) {
    super(`content-encoding ${JSON.stringify(encoding.slice(0, 50))} is not accepted here (${accepted.join(', ')})`);
    this.name = 'BodyEncodingError';
  }
}

/** The two caps of a streamed body: bytes on the wire, and bytes after Content-Encoding is undone. */
export interface BodyLimits {
  compressedBytes: number;
  decompressedBytes: number;
}

/** JSON for a refused body: the problem, the header or limit it is about. */
export function bodyErrorJson(error: BodyLimitError | BodyEncodingError): { error: { code: string; message: string; field: string; limit?: number } } {
  if (error instanceof BodyLimitError) return { error: { code: 'payload_too_large', message: error.message, field: error.limit, limit: error.bytes } };
  return { error: { code: 'unsupported_media_type', message: error.message, field: 'content-encoding' } };
}

/** Passes bytes through and fails with {@link BodyLimitError} as soon as more than `bytes` went by. */
function byteCap(limit: string, bytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > bytes) return callback(new BodyLimitError(limit, bytes));
      callback(null, chunk);
    },
  });
}

/**
 * A decompressor for a `Content-Encoding`, or null for an identity body. zlib streams do their work
 * in libuv's thread pool, so a decompression bomb costs a worker thread, never the event loop; and
 * they inflate only as fast as the consumer reads, so the output cap stops them after at most one chunk.
 */
function decoderFor(contentEncoding: string | undefined): Transform | null {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  throw new BodyEncodingError(encoding);
}

/**
 * The body of a request as a stream of decoded bytes, bounded on both sides (SEC-10): a declared
 * `Content-Length` over the compressed cap is refused before a byte is read; the wire bytes and the
 * decoded bytes are counted as they pass, and the stream fails with {@link BodyLimitError} at the
 * first byte over either cap. Nothing is buffered beyond what the consumer has not read yet.
 *
 * `raw` is piped, not handed to `pipeline`: a failure here must not destroy the request (that would
 * destroy its socket), so the route can still answer 413. Throws {@link BodyEncodingError} for an
 * encoding it does not decode.
 */
export function boundedBody(raw: Readable, headers: { contentLength?: string | undefined; contentEncoding?: string | undefined }, limits: BodyLimits): Readable {
  const declared = headers.contentLength === undefined ? Number.NaN : Number(headers.contentLength);
  if (Number.isFinite(declared) && declared > limits.compressedBytes) throw new BodyLimitError('compressedBytes', limits.compressedBytes);
  const decoder = decoderFor(headers.contentEncoding);
  const wire = byteCap('compressedBytes', limits.compressedBytes);
  const decoded = byteCap('decompressedBytes', limits.decompressedBytes);
  raw.pipe(wire);
  // A client that hangs up mid-body ends nothing through `pipe`; the reader must not wait forever.
  raw.once('close', () => {
    if (!raw.readableEnded) wire.destroy(new Error('the client closed the connection before the body ended'));
  });
  // `pipeline` carries an error (a cap, a corrupt gzip stream) forward to `decoded`, whose reader sees it.
  if (decoder) pipeline(wire, decoder, decoded, () => raw.unpipe(wire));
  else pipeline(wire, decoded, () => raw.unpipe(wire));
  return decoded;
}

/**
 * After an answer given before the body was read (a refusal, a cap): reads and drops the rest of the
 * body, so the client gets the answer instead of a connection reset (closing a socket with unread
 * data resets it, and curl, so git, then reports "RPC failed" and loses the reason). Nothing is
 * decoded or kept; past `limit` more bytes the connection is cut.
 */
export function discardRest(raw: IncomingMessage, limit: number): void {
  raw.unpipe();
  let dropped = 0;
  raw.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limit) raw.socket.destroy();
  });
  raw.resume();
}
