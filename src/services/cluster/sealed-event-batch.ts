import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SealedBatch, SealedPart } from '../../store/repositories/workspace-event-repository.js';

/**
 * A notification must stay under PostgreSQL's 8000 bytes: a box longer than this leaves room for the
 * other fields (workspace id, ids, clock, the 64-character MAC); a longer batch is announced by id only.
 */
const MAX_BOX_CHARS = 7_500;
/** SHA-256's block size: the HMAC pads are this long. */
const HASH_BLOCK = 64;
/** The box's iv (12 bytes) and GCM tag (16 bytes), before the ciphertext (as long as the plaintext). */
const BOX_OVERHEAD_BYTES = 28;

/** One committed event as a notification carries it. */
export interface CarriedEvent {
  type: string;
  data: string;
  at: string;
  origin: string;
}

/** The fields of a sealed notification, as parsed. */
export interface SealedAnnouncement {
  w: string;
  first: number;
  id: number;
  ms: number;
  box: string;
  mac: string;
}

/** A batch whose notification was verified and opened. */
export interface OpenedBatch {
  firstId: number;
  lastId: number;
  committedAtMs: number;
  events: readonly CarriedEvent[];
}

/**
 * Live events carried in the notification itself, so another process delivers them without reading
 * them back (one round trip and two wake-ups less on the way to its streams). Any role that may
 * connect to the database can LISTEN and NOTIFY, so a carried batch is both encrypted (AES-256-GCM,
 * the workspace id as associated data: a listener learns nothing) and authenticated together with
 * the ids the database assigned (HMAC-SHA256, computed by the appending statement with the pads of
 * a key derived from the deployment's secret): a forged or altered notification opens to nothing and
 * is at most a hint to read the table, which is what an ids-only notification always was.
 */
export class EventSeal {
  private readonly boxKey: Buffer;
  private readonly macKey: Buffer;
  private readonly innerPad: Buffer;
  private readonly outerPad: Buffer;

  constructor(secret: Buffer) {
    this.boxKey = createHmac('sha256', secret).update('cc_events box').digest();
    this.macKey = createHmac('sha256', secret).update('cc_events mac').digest();
    this.innerPad = Buffer.alloc(HASH_BLOCK, 0x36);
    this.outerPad = Buffer.alloc(HASH_BLOCK, 0x5c);
    for (let index = 0; index < this.macKey.length; index += 1) {
      this.innerPad[index]! ^= this.macKey[index]!;
      this.outerPad[index]! ^= this.macKey[index]!;
    }
  }

  /**
   * The batch encrypted for its notifications: as few parts as fit one notification each, in id
   * order, so another process opens a large batch part by part instead of reading it back. An event
   * too large for a notification alone is a part without a box (announced by ids only, then read).
   */
  seal(workspaceId: string, events: readonly CarriedEvent[]): SealedBatch {
    const items = events.map((event) => JSON.stringify([event.type, event.data, event.at, event.origin]));
    const parts: SealedPart[] = [];
    let from = 0;
    while (from < items.length) {
      // `[` and `]`, then each item and the comma before all but the first: the plaintext's bytes exactly.
      let bytes = 2 + Buffer.byteLength(items[from]!);
      let to = from;
      while (to + 1 < items.length && boxChars(bytes + 1 + Buffer.byteLength(items[to + 1]!)) <= MAX_BOX_CHARS) {
        to += 1;
        bytes += 1 + Buffer.byteLength(items[to]!);
      }
      const box = boxChars(bytes) <= MAX_BOX_CHARS ? this.box(workspaceId, `[${items.slice(from, to + 1).join(',')}]`) : null;
      parts.push({ from, to, box });
      from = to + 1;
    }
    return { parts, innerPad: this.innerPad, outerPad: this.outerPad };
  }

  /** AES-256-GCM of `plain`, the workspace id as associated data: iv, tag and ciphertext in base64. */
  private box(workspaceId: string, plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.boxKey, iv);
    cipher.setAAD(Buffer.from(workspaceId));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The batch a notification carries, or null when its MAC or box does not check out (then it is only a hint). */
  open(announcement: SealedAnnouncement): OpenedBatch | null {
    const { w, first, id, ms, box, mac } = announcement;
    if (!/^[0-9a-f]{64}$/.test(mac) || id < first) return null;
    const expected = createHmac('sha256', this.macKey).update(signedText(w, first, id, ms, box)).digest();
    if (!timingSafeEqual(expected, Buffer.from(mac, 'hex'))) return null;
    try {
      const sealed = Buffer.from(box, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.boxKey, sealed.subarray(0, 12));
      decipher.setAAD(Buffer.from(w));
      decipher.setAuthTag(sealed.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
      const events = (JSON.parse(plain) as string[][]).map(([type, data, at, origin]) => ({ type: type!, data: data!, at: at!, origin: origin! }));
      if (events.length !== id - first + 1) return null;
      return { firstId: first, lastId: id, committedAtMs: ms, events };
    } catch {
      return null;
    }
  }
}

/**
 * The text the MAC covers. The appending statement builds the same text in SQL
 * (workspace-event-repository.ts): change both together.
 */
export function signedText(workspaceId: string, firstId: number, lastId: number, committedAtMs: number, box: string): string {
  return `${workspaceId}:${firstId}:${lastId}:${committedAtMs}:${box}`;
}

/** The base64 length of a box whose plaintext is `plainBytes` long. */
function boxChars(plainBytes: number): number {
  return 4 * Math.ceil((BOX_OVERHEAD_BYTES + plainBytes) / 3);
}
