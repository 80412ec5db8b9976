/**
 * The command section of a smart-HTTP `git-receive-pack` request, read the way the push proxy needs
 * it (POL-6, SEC-10): incrementally, from the front of the stream, so the push is decided before the
 * pack behind it is read; and a refusal written in receive-pack's own protocol, so git prints the
 * reason as it prints a hook's.
 */

/** One ref update a push asks for (`old` is all zeros for a new ref, `new` all zeros for a deletion). */
export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}

/** The ref updates and the capabilities the client asked for (on the first command, after a NUL). */
export interface CommandSection {
  updates: RefUpdate[];
  capabilities: string[];
}

/** The command section ran past its cap without a flush packet (the proxy answers 413). */
export class CommandSectionTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`the command section (the ref updates before the pack) exceeds its limit of ${bytes} bytes`);
    this.name = 'CommandSectionTooLargeError';
  }
}

/** Thrown for bytes that are not a receive-pack command section (the proxy answers 400). */
export class ReceivePackFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReceivePackFormatError';
  }
}

const OBJECT_ID = /^[0-9a-f]{40,64}$/;

/**
 * Parses pkt-lines `<old> <new> <ref>` up to the first flush packet (`shallow` and push-cert lines are
 * skipped). Returns null while `buffer` does not yet hold the flush packet; `length` is where the
 * section ends (the pack, if any, starts there).
 */
export function parseCommandSection(buffer: Buffer): (CommandSection & { length: number }) | null {
  const updates: RefUpdate[] = [];
  let capabilities: string[] | null = null;
  let offset = 0;
  while (offset + 4 <= buffer.length) {
    const lengthText = buffer.subarray(offset, offset + 4).toString('ascii');
    if (!/^[0-9a-f]{4}$/i.test(lengthText)) throw new ReceivePackFormatError('malformed pkt-line length');
    const length = Number.parseInt(lengthText, 16);
    if (length === 0) return { updates, capabilities: capabilities ?? [], length: offset + 4 };
    if (length < 4) throw new ReceivePackFormatError('malformed pkt-line length');
    if (offset + length > buffer.length) return null;
    const [text, capabilityText] = buffer.subarray(offset + 4, offset + length).toString('utf8').split('\0');
    const line = text!.replace(/\n$/, '');
    offset += length;
    if (capabilities === null && capabilityText !== undefined) capabilities = capabilityText.replace(/\n$/, '').split(' ').filter((word) => word !== '');
    if (line.startsWith('shallow ') || line.startsWith('push-cert')) continue;
    const [old, next, ref] = line.split(' ');
    if (!old || !next || !ref || !OBJECT_ID.test(old) || !OBJECT_ID.test(next)) throw new ReceivePackFormatError(`malformed ref update: ${line.slice(0, 200)}`);
    updates.push({ old, new: next, ref });
  }
  return null;
}

/** The ref updates of a whole receive-pack request body (throws when it has no complete command list). */
export function parseReceivePackCommands(body: Buffer): RefUpdate[] {
  const section = parseCommandSection(body);
  if (!section) throw new ReceivePackFormatError('the command list has no flush packet');
  return section.updates;
}

/**
 * Reads chunks until the command section is complete and returns it with every byte read so far
 * (the section and whatever part of the pack came with it), which the caller replays to git before
 * the rest of the stream. More than `limit` bytes without a flush packet is refused with
 * {@link CommandSectionTooLargeError}, so a client cannot make the proxy buffer its pack while
 * pretending to send commands.
 */
export async function readCommandSection(chunks: AsyncIterator<Buffer>, limit: number): Promise<{ section: CommandSection; consumed: Buffer }> {
  let consumed = Buffer.alloc(0);
  for (;;) {
    const next = await chunks.next();
    if (next.done) {
      const section = parseCommandSection(consumed);
      if (!section) throw new ReceivePackFormatError('the command list has no flush packet');
      return { section, consumed };
    }
    consumed = Buffer.concat([consumed, next.value]);
    const section = parseCommandSection(consumed.subarray(0, limit));
    if (section) return { section, consumed };
    if (consumed.length >= limit) throw new CommandSectionTooLargeError(limit);
  }
}

/** One pkt-line: four hex digits of length (its own four included), then the payload. */
function pktLine(payload: Buffer | string): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0'), 'ascii'), data]);
}

const FLUSH = Buffer.from('0000', 'ascii');
/**
 * The largest side-band payload: a packet is at most 65520 bytes with `side-band-64k`, 1000 with the
 * old `side-band`; four of them are the length and one names the band.
 */
const SIDE_BAND_64K_PAYLOAD = 65515;
const SIDE_BAND_PAYLOAD = 995;

function sideBand(band: 1 | 2, data: Buffer, payload: number): Buffer[] {
  const packets: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += payload) packets.push(pktLine(Buffer.concat([Buffer.from([band]), data.subarray(offset, offset + payload)])));
  return packets;
}

/**
 * receive-pack's answer refusing every ref update with `message`, without having read the pack:
 * a report-status (`ng <ref> <message>` per update) when the client asked for one, inside side-band 1
 * with `message` also on side-band 2 (git prints it as `remote: …`) when it asked for a side band.
 * `message` must be one line.
 */
export function receivePackRefusal(section: CommandSection, message: string): Buffer {
  const reportStatus = section.capabilities.includes('report-status') || section.capabilities.includes('report-status-v2');
  const report = reportStatus ? Buffer.concat([pktLine('unpack ok\n'), ...section.updates.map((update) => pktLine(`ng ${update.ref} ${message}\n`)), FLUSH]) : Buffer.alloc(0);
  const payload = section.capabilities.includes('side-band-64k') ? SIDE_BAND_64K_PAYLOAD : section.capabilities.includes('side-band') ? SIDE_BAND_PAYLOAD : 0;
  if (payload === 0) return report;
  return Buffer.concat([...sideBand(2, Buffer.from(`${message}\n`, 'utf8'), payload), ...sideBand(1, report, payload), FLUSH]);
}
