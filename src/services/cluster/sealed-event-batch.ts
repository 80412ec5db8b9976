import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SealedBatch } from '../../store/repositories/workspace-event-repository.js';

/**
 * A notification must stay under PostgreSQL's 8000 bytes: a box longer than this leaves room for the
 * other fields (workspace id, ids, clock, the 64-character MAC); a longer batch is announced by id only.
 */
const MAX_BOX_CHARS = 7_500;
/** SHA-256's block size: the HMAC pads are this long. */
const HASH_BLOCK = 64;

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

  /** The batch encrypted for the notification; null when it would not fit (then announced by id only). */
  seal(workspaceId: string, events: readonly CarriedEvent[]): SealedBatch | null {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.boxKey, iv);
    cipher.setAAD(Buffer.from(workspaceId));
    const body = Buffer.concat([cipher.update(JSON.stringify(events.map((event) => [event.type, event.data, event.at, event.origin]))), cipher.final()]);
    const box = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    if (box.length > MAX_BOX_CHARS) return null;
    return { box, innerPad: this.innerPad, outerPad: this.outerPad };
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
