import { z } from 'zod';
import { defineTool, fail, ok } from './define-tool.js';
import { fileErrorResult } from './file-error-result.js';

/** Lines returned when the call gives no `limit`. */
export const DEFAULT_READ_LIMIT = 2_000;
/** Longer lines are cut, so one minified file cannot flood the context. */
export const MAX_READ_LINE_LENGTH = 2_000;

export const ReadInput = z.object({
  path: z.string().min(1).describe('File to read, relative to the worktree root (an absolute path inside the worktree also works).'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start at (default 1).'),
  limit: z.number().int().min(1).optional().describe(`Number of lines to return (default ${DEFAULT_READ_LIMIT}).`),
});
export type ReadInput = z.infer<typeof ReadInput>;

/** `read`: a text file with numbered lines, a window at a time. Read tier, no effects. */
export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file from the worktree. Returns numbered lines (`  12\\tcontent`); use offset and limit to page through long files.',
  parameters: ReadInput,
  tier: 'read',
  effects: [],
  group: 'files',
  async execute(input, context) {
    let content: string;
    try {
      content = await context.worktree.readFile(input.path);
    } catch (error) {
      return fileErrorResult(error, input.path);
    }
    if (content.includes('\0')) return fail(`${input.path} looks like a binary file; read only works on text.`);
    if (content === '') return ok(`${input.path} is empty.`, { totalLines: 0 });
    const lines = content.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const offset = input.offset ?? 1;
    const limit = input.limit ?? DEFAULT_READ_LIMIT;
    if (offset > lines.length) {
      return fail(`offset ${offset} is past the end of ${input.path}, which has ${lines.length} line${lines.length === 1 ? '' : 's'}.`);
    }
    const window = lines.slice(offset - 1, offset - 1 + limit);
    const width = String(offset - 1 + window.length).length;
    const numbered = window.map((line, index) => {
      const text = line.length > MAX_READ_LINE_LENGTH ? `${line.slice(0, MAX_READ_LINE_LENGTH)}… [line cut at ${MAX_READ_LINE_LENGTH} characters]` : line;
      return `${String(offset + index).padStart(width, ' ')}\t${text.replace(/\r$/, '')}`;
    });
    const last = offset - 1 + window.length;
    const more = last < lines.length ? `\n[lines ${offset}-${last} of ${lines.length}; continue with offset ${last + 1}]` : '';
    return ok(numbered.join('\n') + more, { totalLines: lines.length, firstLine: offset, lastLine: last });
  },
});
