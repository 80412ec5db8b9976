import { z } from 'zod';
import { defineTool, fail, ok } from './define-tool.js';
import { fileErrorResult } from './file-error-result.js';

export const EditInput = z.object({
  path: z.string().min(1).describe('File to edit, relative to the worktree root.'),
  oldText: z.string().min(1).describe('Exact text to replace, including whitespace; must appear exactly once unless replaceAll is true.'),
  newText: z.string().describe('Replacement text.'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence of oldText (default false).'),
});
export type EditInput = z.infer<typeof EditInput>;

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) count += 1;
  return count;
}

/**
 * `edit`: exact string replacement in one file. Refuses a missing `oldText` and an ambiguous one
 * (more than one occurrence, the count is named) unless `replaceAll` is set, so the model never edits a
 * place it did not mean. Write tier, `writesWorktree`, no effect class.
 */
export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace exact text in a file. oldText must match the file exactly (whitespace included) and appear once; set replaceAll to change every occurrence.',
  parameters: EditInput,
  tier: 'write',
  effects: [],
  writesWorktree: true,
  group: 'files',
  async execute(input, context) {
    if (input.oldText === input.newText) return fail('oldText and newText are identical; there is nothing to change.');
    let content: string;
    try {
      content = await context.worktree.readFile(input.path);
    } catch (error) {
      return fileErrorResult(error, input.path);
    }
    let oldText = input.oldText;
    let newText = input.newText;
    let count = countOccurrences(content, oldText);
    // A model writes `\n`; a file checked out on Windows has `\r\n`. Match it in the file's own style.
    if (count === 0 && content.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
      oldText = oldText.replace(/\n/g, '\r\n');
      newText = newText.replace(/\r?\n/g, '\r\n');
      count = countOccurrences(content, oldText);
    }
    if (count === 0) {
      return fail(`oldText was not found in ${input.path}. Read the file again and copy the text exactly, whitespace included.`, {
        occurrences: 0,
      });
    }
    if (count > 1 && input.replaceAll !== true) {
      return fail(
        `oldText is ambiguous: it appears ${count} times in ${input.path}. Include more surrounding text to make it unique, or set replaceAll: true to change all ${count}.`,
        { occurrences: count },
      );
    }
    const firstLine = content.slice(0, content.indexOf(oldText)).split('\n').length;
    const updated = content.split(oldText).join(newText);
    try {
      await context.worktree.writeFile(input.path, updated);
    } catch (error) {
      return fileErrorResult(error, input.path);
    }
    return ok(`Replaced ${count} occurrence${count === 1 ? '' : 's'} in ${input.path} (first at line ${firstLine}).`, {
      occurrences: count,
      firstLine,
    });
  },
});
