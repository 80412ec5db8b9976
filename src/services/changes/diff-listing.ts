import type { ChangedFile } from '../../schemas/changes.js';

/** A changed file as `git diff-tree --raw --numstat -z` lists it, with the blob ids its sizes are read from. */
export interface ListedFile extends ChangedFile {
  blobBefore: string | null;
  blobAfter: string | null;
}

const STATUS_OF_LETTER: Record<string, ChangedFile['status']> = { A: 'added', D: 'removed', M: 'modified', R: 'renamed', C: 'copied', T: 'typeChanged' };
const NULL_BLOB = /^0+$/;

/**
 * Parses the NUL-separated output of `git diff-tree -r -z --raw --numstat` (CHG-1). Paths are read as
 * whole NUL-terminated fields, so a path holding newlines, tabs, quotes or a leading `-` is kept as
 * it is; git's quoting never applies under `-z`. Raw records give status and blobs; numstat records
 * (in the same order) give the line counts, `-` `-` for a binary file.
 */
export function parseDiffListing(output: string): ListedFile[] {
  const fields = output.split('\0');
  const files: ListedFile[] = [];
  const counts: Array<{ additions: number; deletions: number; binary: boolean }> = [];
  let index = 0;
  while (index < fields.length) {
    const field = fields[index++]!;
    if (field === '') continue;
    if (field.startsWith(':')) {
      // `:<old mode> <new mode> <old blob> <new blob> <letter><score>`, then one path, or two for R and C.
      const [, , blobBefore = '', blobAfter = '', letterAndScore = ''] = field.slice(1).split(' ');
      const letter = letterAndScore.charAt(0);
      const twoPaths = letter === 'R' || letter === 'C';
      const first = fields[index++] ?? '';
      const second = twoPaths ? (fields[index++] ?? '') : null;
      files.push({
        path: second ?? first,
        oldPath: twoPaths ? first : null,
        status: STATUS_OF_LETTER[letter] ?? 'modified',
        binary: false,
        additions: 0,
        deletions: 0,
        sizeBefore: null,
        sizeAfter: null,
        blobBefore: NULL_BLOB.test(blobBefore) ? null : blobBefore,
        blobAfter: NULL_BLOB.test(blobAfter) ? null : blobAfter,
      });
      continue;
    }
    // `<added>\t<deleted>\t<path>`, or `<added>\t<deleted>\t` followed by the old and new paths.
    const [added = '', deleted = '', path = ''] = field.split('\t');
    if (path === '') index += 2;
    const binary = added === '-' && deleted === '-';
    counts.push({ additions: binary ? 0 : Number(added) || 0, deletions: binary ? 0 : Number(deleted) || 0, binary });
  }
  return files.map((file, position) => ({ ...file, ...(counts[position] ?? {}) }));
}
