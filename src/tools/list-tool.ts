import { z } from 'zod';
import { defineTool, ok } from './define-tool.js';
import { fileErrorResult } from './file-error-result.js';

export const ListInput = z.object({
  path: z.string().min(1).optional().describe('Directory to list, relative to the worktree root (default: the root).'),
});
export type ListInput = z.infer<typeof ListInput>;

/** `list`: the entries of one directory, directories suffixed with `/`. Read tier, no effects. */
export const listTool = defineTool({
  name: 'list',
  description: 'List the entries of a directory in the worktree; directories end with `/`.',
  parameters: ListInput,
  tier: 'read',
  effects: [],
  group: 'files',
  async execute(input, context) {
    const path = input.path ?? '.';
    let entries: string[];
    try {
      entries = await context.worktree.list(path);
    } catch (error) {
      return fileErrorResult(error, path);
    }
    if (entries.length === 0) return ok(`${path} is empty.`, { entries });
    return ok(entries.join('\n'), { entries });
  },
});
