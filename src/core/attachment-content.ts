/**
 * TOOL-3: what an attached file is, decided by its bytes and never by its name or a declared type.
 * An image is PNG, JPEG, WebP or GIF by its magic bytes; a text file is UTF-8 without NUL bytes.
 * A name that says "image" over bytes that are not that image is refused, so a renamed file can
 * never reach a model as something it is not. Pure: the caller decodes, stores and reports.
 */

/** The largest image a message may carry (bytes); providers cap an image at about 5 MB, the JSON body at 5 MiB. */
export const MAX_ATTACHED_IMAGE_BYTES = 3 * 1024 * 1024;
/** The largest text file (bytes): it is inlined into the prompt, so it costs context on every call. */
export const MAX_ATTACHED_TEXT_BYTES = 256 * 1024;
/** At most this many files per message. */
export const MAX_ATTACHMENTS_PER_MESSAGE = 8;
/** The longest file name kept. */
export const MAX_ATTACHMENT_NAME_LENGTH = 200;

export type AttachmentKind = 'image' | 'text';

export const IMAGE_MEDIA_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' } as const;
export type ImageFormat = keyof typeof IMAGE_MEDIA_TYPES;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[ImageFormat];

/** The extensions that claim an image, and which format each claims. */
const IMAGE_EXTENSIONS: Readonly<Record<string, ImageFormat>> = { png: 'png', jpg: 'jpeg', jpeg: 'jpeg', webp: 'webp', gif: 'gif' };

/** Which of the accepted image formats the bytes are, by their magic bytes; null for none. */
export function imageFormatOf(bytes: Uint8Array): ImageFormat | null {
  const starts = (...prefix: number[]) => bytes.length >= prefix.length && prefix.every((value, index) => bytes[index] === value);
  const ascii = (from: number, to: number) => (bytes.length >= to ? String.fromCharCode(...bytes.subarray(from, to)) : '');
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'gif';
  return null;
}

/** Bidirectional overrides and isolates: they make `gpj.exe` read as `exe.jpg`. */
const UNSHOWABLE = /[\u202a-\u202e\u2066-\u2069]/;

/** Why a file name may not be kept, or null. A name is a label, never a path: it is shown and sent to the model. */
export function attachmentNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_ATTACHMENT_NAME_LENGTH) return `must be at most ${MAX_ATTACHMENT_NAME_LENGTH} characters`;
  if (/[/\\]/.test(name)) return 'must be a file name, not a path (no / or \\)';
  if (name === '.' || name === '..') return 'must be a file name, not . or ..';
  // Control characters would break the fenced section and the display; bidi overrides disguise the extension.
  if ([...name].some((character) => UNSHOWABLE.test(character) || character.charCodeAt(0) < 0x20 || character === '\u007f')) return 'must not contain control or bidirectional-override characters';
  if (name.includes('`')) return 'must not contain backticks (the name heads a fenced section of the prompt)';
  return null;
}

/** What the bytes were accepted as. */
export type AttachmentContent = { kind: 'image'; mediaType: ImageMediaType } | { kind: 'text'; mediaType: 'text/plain' };

/** The verdict on one file: what it is, or which part (`name` or `data`) is wrong and why. */
export type AttachmentVerdict = { ok: true; content: AttachmentContent } | { ok: false; part: 'name' | 'data'; problem: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8Text(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Decides what a named file is, or why it is refused (TOOL-3: by content and size). */
export function judgeAttachment(name: string, bytes: Uint8Array): AttachmentVerdict {
  const nameProblem = attachmentNameProblem(name);
  if (nameProblem) return { ok: false, part: 'name', problem: nameProblem };
  if (bytes.length === 0) return { ok: false, part: 'data', problem: 'the file is empty' };
  const format = imageFormatOf(bytes);
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  const claimed = extension ? IMAGE_EXTENSIONS[extension] : undefined;
  if (format) {
    if (bytes.length > MAX_ATTACHED_IMAGE_BYTES) return { ok: false, part: 'data', problem: `the image is ${bytes.length} bytes, more than the ${MAX_ATTACHED_IMAGE_BYTES}-byte limit` };
    return { ok: true, content: { kind: 'image', mediaType: IMAGE_MEDIA_TYPES[format] } };
  }
  if (claimed) return { ok: false, part: 'data', problem: `the name says ${claimed.toUpperCase()} image but the bytes are not a PNG, JPEG, WebP or GIF image` };
  if (!isUtf8Text(bytes)) return { ok: false, part: 'data', problem: 'the file is neither a PNG, JPEG, WebP or GIF image nor UTF-8 text' };
  if (bytes.length > MAX_ATTACHED_TEXT_BYTES) return { ok: false, part: 'data', problem: `the text file is ${bytes.length} bytes, more than the ${MAX_ATTACHED_TEXT_BYTES}-byte limit` };
  return { ok: true, content: { kind: 'text', mediaType: 'text/plain' } };
}

/**
 * A text file as the model reads it: a fenced section headed by its name. The fence is longer than
 * any run of backticks inside, so the file cannot close it early and speak as the operator.
 */
export function fencedTextAttachment(name: string, text: string): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `Attached file \`${name}\`:\n${fence}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}
