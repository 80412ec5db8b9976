import type { SkillFolderEntry } from './scan/scan-types.js';

/** A tar stream that is not what `git archive` writes; the fetch is refused (fail-closed, SKL-3). */
export class TarFormatError extends Error {
  constructor(message: string) {
    super(`archive: ${message}`);
    this.name = 'TarFormatError';
  }
}

const BLOCK = 512;
const decoder = new TextDecoder('utf-8');

function field(block: Uint8Array, offset: number, length: number): string {
  const slice = block.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return decoder.decode(end === -1 ? slice : slice.subarray(0, end));
}

function octal(block: Uint8Array, offset: number, length: number): number {
  const text = field(block, offset, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`bad octal field '${text}'`);
  return parseInt(text, 8);
}

/** `key=value` records of a pax header (`<len> key=value\n`). */
function paxRecords(data: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  const text = decoder.decode(data);
  let index = 0;
  while (index < text.length) {
    const space = text.indexOf(' ', index);
    if (space === -1) break;
    const length = Number(text.slice(index, space));
    if (!Number.isInteger(length) || length <= 0) throw new TarFormatError('bad pax record');
    const record = text.slice(space + 1, index + length - 1);
    const equals = record.indexOf('=');
    if (equals !== -1) records.set(record.slice(0, equals), record.slice(equals + 1));
    index += length;
  }
  return records;
}

/** A member path as the skill folder sees it: relative, `/`-separated, no `.`/`..` segments, no NUL. */
function memberPath(raw: string): string | null {
  const trimmed = raw.replace(/\/+$/, '');
  if (trimmed === '' || trimmed.startsWith('/') || trimmed.includes('\0') || trimmed.includes('\\')) return null;
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  return trimmed;
}

/**
 * How much of a skill folder is read (SEC-10): the files' content in total, and the number of members
 * (files, links, directories). Skills are instructions and small scripts; a folder past either cap is
 * refused whole, before its content is copied.
 */
export interface SkillFolderLimits {
  maxBytes: number;
  maxEntries: number;
}

export const SKILL_FOLDER_LIMITS: SkillFolderLimits = { maxBytes: 32 * 1024 * 1024, maxEntries: 2_000 };

/**
 * Reads the files and symbolic links of a `git archive --format=tar` stream into memory (SKL-3: the
 * scan sees the folder before anything is written, and nothing hostile in the archive — a `..`
 * member, an absolute path, a device — is ever handed to an extractor). Directories are implied by
 * paths; any other member type is refused, and so is a folder past `limits` (SEC-10).
 */
export function readTarEntries(archive: Uint8Array, limits: SkillFolderLimits = SKILL_FOLDER_LIMITS): SkillFolderEntry[] {
  const entries: SkillFolderEntry[] = [];
  let members = 0;
  let bytes = 0;
  let offset = 0;
  let pax = new Map<string, string>();
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 0x30);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > archive.length) throw new TarFormatError('truncated member');
    const data = archive.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'g') continue; // git's global header (the commit id)
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    const prefix = field(header, 345, 155);
    const rawName = pax.get('path') ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const linkTarget = pax.get('linkpath') ?? field(header, 157, 100);
    pax = new Map();
    members += 1;
    if (members > limits.maxEntries) throw new TarFormatError(`the folder has more than ${limits.maxEntries} entries, the most a skill may have`);
    if (type === '5') continue;
    bytes += size;
    if (bytes > limits.maxBytes) throw new TarFormatError(`the folder holds more than ${limits.maxBytes} bytes, the most a skill may have`);
    const path = memberPath(rawName);
    if (path === null) throw new TarFormatError(`unsafe member path '${rawName}'`);
    const mode = octal(header, 100, 8);
    if (type === '0' || type === '\0' || type === '7') entries.push({ path, kind: 'file', mode, content: data.slice() });
    else if (type === '2') entries.push({ path, kind: 'symlink', mode: 0o120000, linkTarget });
    else throw new TarFormatError(`member '${path}' has unsupported type '${type}'`);
  }
  return entries;
}
