/**
 * Reads a whole HTTP answer body of at most `maxBytes` (SEC-10): the bytes, or null when the body is
 * larger — declared so, or found so while reading, at which point the read is cancelled and the
 * connection dropped. A model endpoint is outside the server's control (a base URL in settings can
 * point anywhere): an answer that never ends must cost the server `maxBytes` of memory, not all of it.
 * An error of the body itself (the upstream hung up) is thrown, as a plain read would.
 */
export async function readAnswerAtMost(response: Response, maxBytes: number): Promise<Buffer | null> {
  if (!response.body) return Buffer.alloc(0);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    return null;
  }
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
}
