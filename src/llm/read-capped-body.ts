import type { Readable } from 'node:stream';

/**
 * The one way the server reads an answer from a remote service it does not control (SEC-10): a model
 * endpoint, a forge's API, a search API, a web page. Whatever the remote sends, the server holds at
 * most `maxBytes` of it; past that the read stops and the body is cancelled (the connection dropped),
 * so an answer that never ends costs `maxBytes` of memory and no more time, never all of either.
 *
 * It lives in llm/ because that is the lowest layer that talks to remote services: tools/ and
 * services/ may import it, and it imports nothing of theirs.
 */

export interface CappedBody {
  /** What was read: the whole body, or when `overCap` its first `maxBytes` (`keepHead`) or nothing. */
  bytes: Buffer;
  /** The body was larger than the cap, declared so or found so while reading; the rest was never read. */
  overCap: boolean;
  /** With `keepWhatArrived`: why the body broke off before its end (the remote hung up, an abort). */
  brokeOff?: unknown;
}

export interface CappedReadOptions {
  /** The length the remote declared (Content-Length), if any: more than the cap is refused before a byte is read. */
  declaredBytes?: number;
  /** Keep the first `maxBytes` of a body that is too large (an error text still worth showing) instead of nothing. */
  keepHead?: boolean;
  /** A body that breaks off returns what arrived (with `brokeOff`) instead of throwing. */
  keepWhatArrived?: boolean;
}

/** A web stream as an async iterable whose early exit cancels it (the connection is dropped, not drained). */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/**
 * A body as it arrives: a Node stream (an `IncomingMessage`, a decompressor), a fetch `Response`'s web
 * stream, or an async generator over one of them (its early return releases the stream it reads).
 */
export type ByteSource = Readable | ReadableStream<Uint8Array> | AsyncGenerator<Uint8Array>;

function isWebStream(source: ByteSource): source is ReadableStream<Uint8Array> {
  return typeof (source as ReadableStream<Uint8Array>).getReader === 'function';
}

function isNodeStream(source: ByteSource): source is Readable {
  return typeof (source as Readable).destroy === 'function';
}

/**
 * Reads `source` up to `maxBytes`. Leaving early destroys a Node stream and cancels a web stream:
 * that is what stops a remote from streaming on while nobody reads. An error of the body itself is
 * thrown (unless `keepWhatArrived`), as a plain read would.
 */
export async function readCappedBody(source: ByteSource, maxBytes: number, options: CappedReadOptions = {}): Promise<CappedBody> {
  if (options.declaredBytes !== undefined && Number.isFinite(options.declaredBytes) && options.declaredBytes > maxBytes && !options.keepHead) {
    // Nothing worth keeping: stop before the first byte.
    if (isWebStream(source)) await source.cancel().catch(() => undefined);
    else if (isNodeStream(source)) source.destroy();
    else await source.return(undefined);
    return { bytes: Buffer.alloc(0), overCap: true };
  }
  const body: AsyncIterable<Uint8Array> = isWebStream(source) ? chunksOf(source) : (source as AsyncIterable<Uint8Array>);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const room = maxBytes - size;
      if (chunk.byteLength > room) {
        if (options.keepHead && room > 0) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, room));
        return { bytes: options.keepHead ? Buffer.concat(chunks) : Buffer.alloc(0), overCap: true };
      }
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      size += chunk.byteLength;
    }
  } catch (error) {
    if (!options.keepWhatArrived) throw error;
    return { bytes: Buffer.concat(chunks, size), overCap: false, brokeOff: error };
  }
  return { bytes: Buffer.concat(chunks, size), overCap: false };
}

/** {@link readCappedBody} for a fetch `Response`: its Content-Length is the declared size. */
export async function readCappedResponse(response: Response, maxBytes: number, options: Omit<CappedReadOptions, 'declaredBytes'> = {}): Promise<CappedBody> {
  if (!response.body) return { bytes: Buffer.alloc(0), overCap: false };
  const declared = response.headers.get('content-length');
  return readCappedBody(response.body as ReadableStream<Uint8Array>, maxBytes, { ...options, ...(declared === null ? {} : { declaredBytes: Number(declared) }) });
}
