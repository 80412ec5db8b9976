import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Images a provider generated, kept in the workspace's data directory under their content hash
 * (`images/<sha256>.<ext>`). The bytes come from a model provider, so they are hostile until proven
 * otherwise: only PNG, JPEG and WebP (by their magic bytes, never by what the provider says) within a
 * size cap are stored, and a name is only ever one of our own hashes.
 */

/** The largest image stored (bytes). */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

export type ImageKind = 'png' | 'jpg' | 'webp';

export const IMAGE_CONTENT_TYPES: Readonly<Record<ImageKind, string>> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/** The only shape a stored image's name takes: 64 lowercase hex digits and a known extension. */
export const IMAGE_NAME_PATTERN = /^[0-9a-f]{64}\.(png|jpg|webp)$/;

/** The sub-directory of the workspace data directory that holds the images. */
const IMAGES_DIR = 'images';

/** What the magic bytes say the image is, or null when it is none of the three accepted formats. */
export function imageKindOf(bytes: Uint8Array): ImageKind | null {
  const starts = (...prefix: number[]) => prefix.every((value, index) => bytes[index] === value);
  if (bytes.length >= 8 && starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (bytes.length >= 3 && starts(0xff, 0xd8, 0xff)) return 'jpg';
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1');
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}

/** Why `bytes` may not be stored, or null when it may. */
export function imageRejection(bytes: Uint8Array, maxBytes = MAX_IMAGE_BYTES): string | null {
  if (bytes.length === 0) return 'the image is empty';
  if (bytes.length > maxBytes) return `the image is ${bytes.length} bytes, more than the ${maxBytes}-byte limit`;
  if (!imageKindOf(bytes)) return 'the bytes are not a PNG, JPEG or WebP image';
  return null;
}

/** Stores a validated image (atomically, 0600) and returns its name; throws with the reason when it is refused. */
export async function storeGeneratedImage(workspaceDir: string, bytes: Uint8Array, maxBytes = MAX_IMAGE_BYTES): Promise<{ name: string; kind: ImageKind; bytes: number }> {
  const rejection = imageRejection(bytes, maxBytes);
  if (rejection) throw new Error(rejection);
  const kind = imageKindOf(bytes)!;
  const name = `${createHash('sha256').update(bytes).digest('hex')}.${kind}`;
  const dir = join(workspaceDir, IMAGES_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${name}.${process.pid}.${Date.now()}.tmp`);
  await writeFile(temporary, bytes, { mode: 0o600 });
  await rename(temporary, join(dir, name));
  return { name, kind, bytes: bytes.length };
}

/** A stored image's bytes and content type, or null when the name is not one of ours or nothing is stored under it. */
export async function readGeneratedImage(workspaceDir: string, name: string): Promise<{ bytes: Buffer; contentType: string } | null> {
  const match = IMAGE_NAME_PATTERN.exec(name);
  if (!match) return null;
  const bytes = await readFile(join(workspaceDir, IMAGES_DIR, name)).catch(() => null);
  if (!bytes) return null;
  return { bytes, contentType: IMAGE_CONTENT_TYPES[match[1] as ImageKind] };
}

/** The path the web loads a stored image from (an authenticated route; the session cookie carries). */
export function generatedImagePath(workspaceId: string, name: string): string {
  return `/api/workspaces/${encodeURIComponent(workspaceId)}/images/${name}`;
}
