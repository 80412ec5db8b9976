import { z } from 'zod';
import { defineTool, ok } from './define-tool.js';
import { fileErrorResult } from './file-error-result.js';

export const WriteInput = z.object({
  path: z.string().min(1).describe('File to write, relative to the worktree root. Missing parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
});
export type WriteInput = z.infer<typeof WriteInput>;

/**
 * `write`: creates or replaces a whole file inside the worktree. Write tier; it changes only the
 * worktree, so it declares `writesWorktree` and no effect class (the path rule keeps it inside, HAR-7).
 */
export const writeTool = defineTool({
  name: 'write',
  description: 'Create a file or replace its whole content. Creates missing parent directories. Prefer edit for changing part of an existing file.',
  parameters: WriteInput,
  tier: 'write',
  effects: [],
  writesWorktree: true,
  group: 'files',
  async execute(input, context) {
    try {
      const existed = await context.worktree.exists(input.path);
      await context.worktree.writeFile(input.path, input.content);
      const bytes = Buffer.byteLength(input.content, 'utf8');
      return ok(`${existed ? 'Overwrote' : 'Created'} ${input.path} (${bytes} bytes).`, { created: !existed, bytes });
    } catch (error) {
      return fileErrorResult(error, input.path);
    }
  },
});
